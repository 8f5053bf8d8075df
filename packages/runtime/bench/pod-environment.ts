/**
 * The environment the bench starts its probe and operator processes in: what a Pod's container
 * would have, not the bench runner's whole shell. A developer's machine carries settings no
 * operator Pod does, and some cost one side only: `NODE_EXTRA_CA_CERTS` makes every Node process
 * parse that CA bundle before its first line (~80 ms and some RSS on a 2-core machine with
 * Debian's bundle), while Go reads its system roots only when a connection needs them, and the
 * probes verify the API server against the kubeconfig's CA alone.
 * `BENCH_PROBE_ENV=inherit` starts them with the bench's whole environment instead.
 */

/** What a container's environment has too: the bench's values are passed on. */
const KEPT = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];

/** Whether the processes get the bench's whole environment (`BENCH_PROBE_ENV=inherit`). */
function inherits(): boolean {
  const mode = process.env.BENCH_PROBE_ENV;
  if (mode !== undefined && mode !== 'inherit' && mode !== 'pod')
    throw new Error(`BENCH_PROBE_ENV: expected "pod" (default) or "inherit", got "${mode}"`);
  return mode === 'inherit';
}

/** The environment of a process the bench starts: {@link KEPT} (or everything) plus `extra`. */
export function podEnvironment(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  if (inherits()) Object.assign(env, process.env);
  else for (const name of KEPT) if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, ...extra };
}

/** Variables of the bench's environment that Node or Go read at start and that the processes do not get. */
export function droppedStartupVariables(): string[] {
  if (inherits()) return [];
  return Object.keys(process.env)
    .filter((name) => /^(NODE_|UV_|GO)/.test(name) && !KEPT.includes(name))
    .sort();
}
