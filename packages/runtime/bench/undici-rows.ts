/**
 * Rows for issue 39's question: undici's `Pool` against the runtime's own HTTP/1.1 client on the
 * controller probes' requests (http-client-probe.ts), fresh processes, alternated (http1 first),
 * `runs` pairs. "ours" is undici, "base" the runtime's http1; each figure is the median, the
 * spread (min–max) in the row's name; the machine's load average when the rows began and ended
 * is logged.
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type ProbeResult, runProbe } from './baseline.js';
import { median, type Row } from './table.js';

const probe = fileURLToPath(new URL('./http-client-probe.js', import.meta.url));

/** What the rows compare, per workload. */
interface Workload {
  mode: 'read' | 'write';
  namespace: string;
  count: number;
}

const range = (xs: readonly number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;

/** Runs both clients `runs` times per workload, alternated, and returns one row per figure. */
export async function undiciRows(
  credentials: string,
  workloads: readonly Workload[],
  runs: number,
  log: (line: string) => void,
): Promise<Row[]> {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(1))
      .join(' ');
  log(`undici rows: load average ${load()} at the start`);
  const rows: Row[] = [];
  for (const w of workloads) {
    const sides: Record<'http1' | 'undici', ProbeResult[]> = { http1: [], undici: [] };
    const args = (client: string) => [probe, client, w.mode, credentials, w.namespace, String(w.count)];
    for (let i = 0; i < runs; i++) {
      sides.http1.push(await runProbe(process.execPath, args('http1')));
      sides.undici.push(await runProbe(process.execPath, args('undici')));
      log(`undici ${w.mode}: run ${i + 1}/${runs}`);
    }
    for (const [field, label] of [
      ['wallMs', `${w.mode}, ${w.count} CMs: wall (fresh process)`],
      ['cpuMs', `${w.mode}, ${w.count} CMs: CPU`],
      ['importMs', `${w.mode}: import of the client`],
    ] as const) {
      const ours = sides.undici.map((r) => r[field] as number);
      const base = sides.http1.map((r) => r[field] as number);
      rows.push({
        // The spread in the name: the table's figure columns hold a median each.
        name: `undici Pool: ${label} [undici ${range(ours)}, http1 ${range(base)} ms]`,
        ours: `${median(ours).toFixed(0)} ms`,
        base: `${median(base).toFixed(0)} ms`,
        ratio: median(ours) / median(base),
        goal: 'info',
        limit: 1,
        against: "the runtime's http1 client",
      });
    }
  }
  log(`undici rows: load average ${load()} at the end`);
  return rows;
}
