/**
 * `npm run bench`: Capstan beside controller-runtime (a Go program in `go/`, built once from the
 * Go module proxy) on one envtest apiserver (watch cache on, as in production). Each workload runs
 * in fresh processes, the two sides alternated, several runs; the table shows medians and ratios.
 *  1. fresh-process read: 10,000 ConfigMaps, each key reconciled once, 4 workers (spawn → last key);
 *  2. write: 5,000 ConfigMaps, each reconcile writes one merge patch;
 *  3. heap per cached object (10,000 ConfigMaps of ~1 KB);
 *  4. work queue add/get/done cycles per second, ours against client-go's;
 *  5. a 100,000-object informer sync: time and heap;
 *  6. footprint, planner and FleetLock rows with absolute targets (see footprint.ts, operators.ts).
 * `BENCH_RUNS` (default 5), `BENCH_SCALE` (default 1: multiplies every object count) tune it.
 */
import { fileURLToPath } from 'node:url';
import { ControlPlane } from '@capstan/envtest';
import { HttpTransport } from '@capstan/runtime';
import { baselineBinary, controllerRuntimeVersion, type ProbeResult, runProbe } from './baseline.js';
import { measureFootprint } from './footprint.js';
import { measureOperators } from './operators.js';
import { seedConfigMaps } from './seed.js';
import { type AbsoluteRow, absoluteMet, formatTable, median, met, type Row } from './table.js';
import { workqueueThroughput } from './workqueue.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const READ = Math.round(10_000 * SCALE);
const WRITE = Math.round(5_000 * SCALE);
const BIG = Math.round(100_000 * SCALE);
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const probe = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));
const node = process.execPath;

const go = baselineBinary(log);
const against = `controller-runtime ${controllerRuntimeVersion()}`;
const rows: Row[] = [];
const absolute: AbsoluteRow[] = [];
const runs: Record<string, { ours: ProbeResult[]; base: ProbeResult[] }> = {};

/** Runs both sides `times` times, alternated (baseline first), and keeps every result. */
async function alternate(
  name: string,
  times: number,
  ours: () => Promise<ProbeResult>,
  base: () => Promise<ProbeResult>,
) {
  const entry = { ours: [] as ProbeResult[], base: [] as ProbeResult[] };
  runs[name] = entry;
  for (let i = 0; i < times; i++) {
    entry.base.push(await base());
    entry.ours.push(await ours());
    log(`${name}: run ${i + 1}/${times}`);
  }
  const pick = (field: string) => ({
    ours: median(entry.ours.map((r) => r[field] as number)),
    base: median(entry.base.map((r) => r[field] as number)),
  });
  return pick;
}

const ms = (x: number) => `${x.toFixed(0)} ms`;
const bytes = (x: number) => `${x.toFixed(0)} B`;
const mb = (x: number) => `${(x / 1e6).toFixed(1)} MB`;

// The queue first, while no apiserver or etcd competes for the CPU; a short run warms the JIT.
{
  await workqueueThroughput(1_000, 5);
  const ours: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    base.push((await runProbe(go, ['queue', '10000', '20'])).perSecond as number);
    ours.push(await workqueueThroughput(10_000, 20));
  }
  const [o, b] = [median(ours), median(base)];
  rows.push({
    name: 'workqueue add/get/done',
    ours: `${(o / 1e6).toFixed(2)} M/s`,
    base: `${(b / 1e6).toFixed(2)} M/s`,
    ratio: o / b,
    goal: '>=',
    limit: 0.5,
    against: "client-go's rate-limiting queue",
  });
}

const plane = await ControlPlane.start({ watchCache: true });
try {
  const kubeconfig = plane.kubeconfigPath;
  const env = { KUBECONFIG: kubeconfig };
  const transport = new HttpTransport(plane.kubeConfig);
  let t = performance.now();
  log(`seeding ${READ} + ${WRITE} + ${BIG} ConfigMaps...`);
  await seedConfigMaps(transport, 'bench-read', READ, 700); // ~1 KB of JSON each, with metadata
  await seedConfigMaps(transport, 'bench-write', WRITE, 700);
  await seedConfigMaps(transport, 'bench-big', BIG, 100);
  transport.close();
  log(`seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  let pick = await alternate(
    'read',
    RUNS,
    () => runProbe(node, [probe('controller-probe.js'), 'read', 'bench-read', String(READ)], env),
    () => runProbe(go, ['read', 'bench-read', String(READ)], env),
  );
  let m = pick('wallMs');
  rows.push({
    name: `fresh-process read, ${READ} CMs`,
    ours: ms(m.ours),
    base: ms(m.base),
    ratio: m.ours / m.base,
    goal: '<=',
    limit: 1,
    against,
  });

  pick = await alternate(
    'heap',
    RUNS,
    () =>
      runProbe(node, [
        '--expose-gc',
        probe('informer-probe.js'),
        kubeconfig,
        'bench-read',
        String(READ),
        'warm',
      ]),
    () => runProbe(go, ['informer', 'bench-read', String(READ)], env),
  );
  m = pick('heapBytes');
  rows.push({
    name: 'heap per cached object',
    ours: bytes(m.ours / READ),
    base: bytes(m.base / READ),
    ratio: m.ours / m.base,
    goal: '<=',
    limit: 0.5,
    against,
  });

  pick = await alternate(
    'write',
    Math.min(RUNS, 3),
    () => runProbe(node, [probe('controller-probe.js'), 'write', 'bench-write', String(WRITE)], env),
    () => runProbe(go, ['write', 'bench-write', String(WRITE)], env),
  );
  m = pick('wallMs');
  rows.push({
    name: `write, ${WRITE} CMs (merge patch each)`,
    ours: ms(m.ours),
    base: ms(m.base),
    ratio: m.ours / m.base,
    goal: '<=',
    limit: 1,
    against,
  });

  pick = await alternate(
    'sync',
    Math.min(RUNS, 3),
    () => runProbe(node, ['--expose-gc', probe('informer-probe.js'), kubeconfig, 'bench-big', String(BIG)]),
    () => runProbe(go, ['informer', 'bench-big', String(BIG)], env),
  );
  m = pick('syncMs');
  rows.push({
    name: `informer sync, ${BIG} CMs: time`,
    ours: ms(m.ours),
    base: ms(m.base),
    ratio: m.ours / m.base,
    goal: '<=',
    limit: 1,
    against,
  });
  m = pick('heapBytes');
  rows.push({
    name: `informer sync, ${BIG} CMs: heap`,
    ours: mb(m.ours),
    base: mb(m.base),
    ratio: m.ours / m.base,
    goal: '<=',
    limit: 0.5,
    against,
  });

  t = performance.now();
  absolute.push(...(await measureFootprint(plane, log)));
  absolute.push(...(await measureOperators(plane, log)));
  log(`operator rows in ${((performance.now() - t) / 1000).toFixed(1)} s`);
} finally {
  await plane.stop();
}

process.stdout.write(`\n${formatTable(rows, absolute)}\n\nruns: ${JSON.stringify(runs)}\n`);
const pass = rows.every(met) && absolute.every(absoluteMet);
process.stdout.write(`targets ${pass ? 'met' : 'NOT met'}\n`);
