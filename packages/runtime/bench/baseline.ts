/**
 * The controller-runtime baseline: a Go program kept in `bench/go/`, built with the machine's Go
 * from the Go module proxy at the versions its go.mod pins, once per machine, into
 * `~/.cache/capstan/bench/<hash of go/>/baseline` (like the envtest binaries; `CAPSTAN_BENCH_CACHE`
 * moves it). Editing go.mod or a .go file gives a new hash, so a stale binary is never reused.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { podEnvironment } from './pod-environment.js';

/** The Go module's source folder (the .ts sources and dist/ both sit beside `go/`'s parent). */
const goDir = fileURLToPath(new URL('../go', import.meta.url));

/** The controller-runtime version go.mod pins, for the table's header. */
export function controllerRuntimeVersion(): string {
  const goMod = readFileSync(join(goDir, 'go.mod'), 'utf8');
  return goMod.match(/sigs\.k8s\.io\/controller-runtime (v\S+)/)?.[1] ?? 'unknown';
}

function cacheDir(): string {
  if (process.env.CAPSTAN_BENCH_CACHE) return process.env.CAPSTAN_BENCH_CACHE;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'capstan', 'bench');
}

/** Path of the baseline binary, building it first when the cache lacks it. */
export function baselineBinary(progress: (line: string) => void): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(goDir).sort()) hash.update(file).update(readFileSync(join(goDir, file)));
  const dir = join(
    cacheDir(),
    `controller-runtime-${controllerRuntimeVersion()}-${hash.digest('hex').slice(0, 12)}`,
  );
  const binary = join(dir, 'baseline');
  if (existsSync(binary)) return binary;
  progress(`building the controller-runtime baseline into ${dir} (first run only; a few minutes)...`);
  mkdirSync(dir, { recursive: true });
  const scratch = `${binary}.partial-${process.pid}`;
  const started = Date.now();
  const go = spawnSync('go', ['build', '-o', scratch, '.'], {
    cwd: goDir,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (go.error || go.status !== 0) {
    throw new Error(
      `building the baseline failed (${go.error?.message ?? `go exited ${go.status}`}): the bench needs Go ` +
        '1.25 or newer on PATH and the Go module proxy reachable',
    );
  }
  renameSync(scratch, binary); // atomic: an interrupted build never looks complete
  progress(`baseline built in ${Math.round((Date.now() - started) / 1000)} s`);
  return binary;
}

/** What one probe process printed (its last stdout line, as JSON), plus the wall time to it. */
export type ProbeResult = Record<string, number> & { wallMs: number };

/**
 * Runs one probe process and resolves with its JSON line; `wallMs` is measured here, from spawn to
 * that line, so process start-up (runtime, module loading) counts as it does for a real restart.
 * The process gets a Pod's environment, not the bench's (see pod-environment.ts).
 */
export function runProbe(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      env: podEnvironment(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let result: ProbeResult | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line && !result) result = { ...JSON.parse(line), wallMs: performance.now() - started };
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-4000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (result) resolve(result);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code} without a result:\n${err}`));
    });
  });
}
