/**
 * Footprint rows: the agent and the coordinator started as their DaemonSet/Deployment starts them
 * (each with its image's Node.js options), each from `dist/main.js` and from the tree-shaken
 * `dist/main.bundle.mjs` (`npm run bundle`), all four side by side; RSS read after their caches
 * synced and 30 s idle, and again after `BENCH_SCRAPES` scrapes of their metrics (120 by default).
 * That is done in rounds (`BENCH_FOOTPRINT_ROUNDS`, default 3) of fresh processes and each row is
 * the median: one process's RSS varies by ~2 MB from start to start.
 *
 * RSS is in MB (10^6 bytes), as the heap rows and the target. The target is the images' process
 * (their entry point is the bundle) idle. The rows from dist have none: they say what running an
 * operator unbundled costs. Neither have the scrape rows: they say what a running process becomes
 * once V8 optimizes what it repeats (docs/ARCHITECTURE.md: why the agent runs in lite mode).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_NODE_OPTIONS, FakeLogind, FakeUpdateEngine, startPrivateBus } from '@capstan/agent';
import { COORDINATOR_NODE_OPTIONS } from '@capstan/coordinator';
import type { ControlPlane } from '@capstan/envtest';
import { loadBundler } from './bundler.js';
import { coordinatorCrds, OperatorProcess, packagesDir } from './operator-process.js';
import { type AbsoluteRow, median } from './table.js';

const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 30_000);
/** Scrapes after the idle sample (120: half an hour of Prometheus's at 15 s), and how often. */
const SCRAPES = Number(process.env.BENCH_SCRAPES ?? 120);
const SCRAPE_EVERY_MS = 100;
const ROUNDS = Number(process.env.BENCH_FOOTPRINT_ROUNDS ?? 3);
const LIMIT_MB = 50;
/** More Node.js options for both operators (`BENCH_FOOTPRINT_NODE_ARGS`, space-separated): to try flags. */
const EXTRA = (process.env.BENCH_FOOTPRINT_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** More environment for both operators (`BENCH_FOOTPRINT_ENV`, space-separated NAME=value): to try settings. */
const EXTRA_ENV = Object.fromEntries(
  (process.env.BENCH_FOOTPRINT_ENV ?? '')
    .split(' ')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`BENCH_FOOTPRINT_ENV: expected NAME=value, got "${pair}"`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
);
const MB = 1e6;
const packages = packagesDir;

/** The agent's DaemonSet arguments (deploy/daemonset.yaml), pointed at a private bus and os-release. */
const agentArgs = (bus: string, osRelease: string) => [
  '--source=update-engine',
  '--protocol=capstan',
  '--drain-timeout=10m',
  '--drain-grace-period=-1s',
  `--os-release-path=${osRelease}`,
  `--bus-address=${bus}`,
  // The bench runs it with the admin's kubeconfig, not a pod-bound token (no policy installed here).
  '--allow-unbound-token',
];

/** The coordinator's Deployment arguments (deploy/coordinator.yaml), each copy on its own Lease. */
const coordinatorArgs = (leaseId: string) => [
  '--leader-elect',
  `--leader-election-id=${leaseId}`,
  '--protocol=capstan',
  '--default-max-unavailable=1',
  '--default-grant-timeout=30m',
  '--fleetlock-bind-address=0',
];

export async function measureFootprint(
  plane: ControlPlane,
  log: (line: string) => void,
): Promise<AbsoluteRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-bench-footprint-'));
  const osRelease = join(dir, 'os-release');
  writeFileSync(osRelease, 'ID=flatcar\nVERSION=4230.2.0\n');
  await plane.installCRDs([coordinatorCrds]);
  const bus = await startPrivateBus(join(dir));
  const engine = await FakeUpdateEngine.start({ address: bus.address });
  const logind = await FakeLogind.start({ address: bus.address });
  const env = { KUBECONFIG: plane.kubeconfigPath, POD_NAMESPACE: 'default', ...EXTRA_ENV };
  let processes: OperatorProcess[] = [];
  try {
    const entries = [
      ['dist/main.js', (name: string) => join(packages, name, 'dist', 'main.js')],
      ['bundle', (name: string) => join(packages, name, 'dist', 'main.bundle.mjs')],
    ] as const;
    const { bundleOperator } = await loadBundler();
    for (const name of ['agent', 'coordinator']) await bundleOperator(name);
    const samples = new Map<string, number[]>();
    const sample = (row: string, mb: number) => samples.set(row, [...(samples.get(row) ?? []), mb]);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [variant, entry] of entries) {
        const node = `footprint-${variant === 'bundle' ? 'bundle' : 'dist'}`;
        await plane.createObjects([{ apiVersion: 'v1', kind: 'Node', metadata: { name: node } }], {
          ignoreExisting: true,
        });
        processes.push(
          // With its image's Node.js options, from dist as from the bundle: the rows differ by
          // the bundling alone.
          await OperatorProcess.start(
            `agent (${variant})`,
            entry('agent'),
            agentArgs(bus.address, osRelease),
            { ...env, NODE_NAME: node },
            [...AGENT_NODE_OPTIONS, ...EXTRA],
            true,
          ),
          // A Lease per round: a new leader never waits out the last round's.
          await OperatorProcess.start(
            `coordinator (${variant})`,
            entry('coordinator'),
            coordinatorArgs(`bench-${node}-${round}`),
            env,
            [...COORDINATOR_NODE_OPTIONS, ...EXTRA],
            true,
          ),
        );
      }
      await Promise.all(processes.map((p) => p.ready()));
      log(
        `footprint round ${round}/${ROUNDS}: ${processes.length} operator processes ready; idle ${IDLE_MS / 1000} s`,
      );
      await new Promise((r) => setTimeout(r, IDLE_MS));
      for (const p of processes) sample(`idle RSS, ${p.name}`, p.rssBytes() / MB);
      // Then what a running process becomes: every scrape runs the same code again, until V8
      // finds it hot enough to optimize.
      for (let i = 0; i < SCRAPES; i++) {
        await Promise.all(processes.map((p) => p.scrape()));
        await new Promise((r) => setTimeout(r, SCRAPE_EVERY_MS));
      }
      for (const p of processes) sample(`scraped RSS, ${p.name}`, p.rssBytes() / MB);
      await Promise.all(processes.map((p) => p.stop()));
      processes = [];
    }
    for (const [name, mb] of samples) log(`footprint: ${name}: ${mb.map((x) => x.toFixed(1)).join(', ')} MB`);
    return [...samples].map(([name, mb]): AbsoluteRow => {
      const idle = name.startsWith('idle');
      const row = {
        name,
        value: median(mb),
        unit: 'MB',
        limit: LIMIT_MB,
        statistic: `median of ${mb.length}, ${idle ? `after sync + ${IDLE_MS / 1000} s` : `then ${SCRAPES} metrics scrapes`}`,
      };
      if (!name.includes('(bundle)')) return { ...row, goal: 'info', why: 'the images start the bundle' };
      return idle ? { ...row, goal: '<=' } : { ...row, goal: 'info', why: 'the target is idle' };
    });
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
    await logind.stop();
    await engine.stop();
    await bus.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
