/**
 * The fleet rollout rows (issue 48): `FLEET_NODES` kwok nodes (default 1,000) in 20 reboot groups
 * (control plane first, budgets 10–25%), a PDB-bound Deployment on them, the coordinator as its
 * Deployment starts it (its own process, its own identity) and the fleet agent in this process.
 * Every node is asked to reboot at once; the rows are
 *  - wall time to the last node back, against the budget-bound ideal (groups in order,
 *    ⌈n / budget⌉ rounds of `FLEET_REBOOT_MS` each);
 *  - the coordinator's CPU-seconds per node and its RSS peak (VmHWM), started as its image starts
 *    it (the bundle);
 *  - API requests the coordinator sent per node reboot, counted by the apiserver's audit log
 *    (events of the coordinator's user, ResponseComplete), not by the coordinator;
 *  - the most nodes in flight in any group beyond its budget (an observer watching every node).
 * `BENCH_FLEET_NODE_ARGS` adds node flags to the coordinator's process (profiling).
 * kwok's node Leases last 240 s (renewed every 60 s: 17 writes a second at 1,000 nodes, which
 * 2 cores hold beside the rollout; at the kubelet's 40 s it would be 100).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { COORDINATOR_NODE_OPTIONS } from '@capstan/coordinator';
import { ControlPlane } from '@capstan/envtest';
import { HttpTransport } from '@capstan/runtime/client';
import { loadBundler } from './bundler.js';
import {
  FLEET_LABEL,
  FleetObserver,
  fleetLayout,
  groupOrder,
  idealMs,
  pdbWorkload,
  rebootGroups,
  rolloutEdges,
  startFleetAgent,
} from './fleet.js';
import { formatPhases, formatSteps } from './fleet-timeline.js';
import { coordinatorCrds, OperatorProcess, packagesDir } from './operator-process.js';
import type { AbsoluteRow } from './table.js';

const NODES = Number(process.env.FLEET_NODES ?? 1_000);
const REBOOT_MS = Number(process.env.FLEET_REBOOT_MS ?? 5_000);
const GROUPS = 20;
const USER = 'bench-fleet-coordinator';

/** An audit policy that records the coordinator's requests (metadata only) and nothing else. */
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
    users: ["${USER}"]
  - level: None
`;

/** The coordinator's requests in the audit log, by verb (those that completed or were refused). */
function auditedRequests(path: string): { total: number; byVerb: Record<string, number> } {
  const byVerb: Record<string, number> = {};
  let total = 0;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line) continue;
    const event = JSON.parse(line) as { stage: string; verb: string; user?: { username?: string } };
    if (event.user?.username !== USER || event.stage === 'ResponseStarted') continue;
    byVerb[event.verb] = (byVerb[event.verb] ?? 0) + 1;
    total++;
  }
  return { total, byVerb };
}

/** The coordinator as its image starts it (the bundle, its Node.js options), on the fleet's nodes. */
async function startCoordinator(plane: ControlPlane, fleet: string): Promise<OperatorProcess> {
  const identity = await plane.userKubeConfig(USER, ['system:masters']);
  // As its image starts it: the bundle.
  await (await loadBundler()).bundleOperator('coordinator');
  const coordinator = await OperatorProcess.start(
    'coordinator (fleet)',
    join(packagesDir, 'coordinator', 'dist', 'main.bundle.mjs'),
    ['--protocol=capstan', `--node-selector=${FLEET_LABEL}=${fleet}`, '--metrics-bind-address=0'],
    { KUBECONFIG: identity.path, POD_NAMESPACE: 'default' },
    // Its image's Node.js options, then any for profiling (e.g. `--heapsnapshot-signal=SIGUSR2`).
    [
      ...COORDINATOR_NODE_OPTIONS,
      ...(process.env.BENCH_FLEET_NODE_ARGS ?? '').split(' ').filter((a) => a !== ''),
    ],
  );
  return coordinator;
}

/** One rollout's figures. */
interface Rollout {
  wallMs: number;
  ideal: number;
  cpuMs: number;
  peakRss: number;
  perReboot: number;
  over: number;
}

/** The rollout's rows, against their targets (issue 48). */
function rolloutRows(
  { wallMs, ideal, cpuMs, peakRss, perReboot, over }: Rollout,
  stat: string,
): AbsoluteRow[] {
  return [
    {
      name: `fleet rollout, ${NODES} nodes: wall / budget-bound ideal`,
      value: wallMs / ideal,
      unit: 'x',
      goal: '<=',
      limit: 1.1,
      statistic: `one run, ${stat}`,
    },
    {
      name: `  coordinator CPU per node rebooted`,
      value: cpuMs / 1000 / NODES,
      unit: 's',
      goal: '<=',
      limit: 1,
      statistic: 'one run',
    },
    {
      name: `  coordinator RSS peak`,
      value: peakRss / 1e6,
      unit: 'MB',
      goal: '<=',
      limit: 150,
      statistic: 'VmHWM',
    },
    {
      name: `  coordinator API requests per node reboot`,
      value: perReboot,
      unit: 'req',
      goal: 'info',
      limit: 0,
      statistic: 'apiserver audit log',
      why: 'to watch',
    },
    {
      name: `  most in flight beyond a group's budget`,
      value: over,
      unit: 'nodes',
      goal: '<=',
      limit: 0,
      statistic: 'watched, every group',
    },
  ];
}

/** Runs the rollout once on a control plane of its own and returns its rows. */
export async function fleetRows(log: (line: string) => void): Promise<AbsoluteRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-bench-fleet-'));
  const policy = join(dir, 'audit-policy.yaml');
  const audit = join(dir, 'audit.log');
  writeFileSync(policy, auditPolicy);
  const load = () => loadavg()[0]?.toFixed(1);
  log(`fleet: ${NODES} nodes, ${GROUPS} groups, reboot ${REBOOT_MS} ms; load average ${load()}`);
  const plane = await ControlPlane.start({
    controllerManager: true,
    scheduler: true,
    kwok: true,
    // As in production: lists (the fence's fresh one, the reboots' pod lists) from the watch cache.
    watchCache: true,
    nodeLeaseSeconds: 240,
    apiServerFlags: [`--audit-policy-file=${policy}`, `--audit-log-path=${audit}`, '--audit-log-mode=batch'],
  });
  const stops: Array<() => Promise<void>> = [];
  try {
    const layout = fleetLayout('fleet', NODES, GROUPS);
    let t = Date.now();
    await plane.installCRDs([coordinatorCrds]);
    await plane.addNodes(layout.specs, 30 * 60_000);
    await plane.createObjects(rebootGroups(layout) as never);
    await plane.createObjects([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fleet' } }]);
    await pdbWorkload(plane, 'fleet', layout, Math.round(NODES / 4));
    log(`fleet: ${NODES} nodes Ready and the workload created in ${((Date.now() - t) / 1000).toFixed(0)} s`);

    const coordinator = await startCoordinator(plane, layout.name);
    stops.push(() => coordinator.stop());
    await coordinator.ready();
    const transport = new HttpTransport(plane.kubeConfig);
    const observer = new FleetObserver(transport, layout);
    await observer.start();
    stops.push(async () => {
      await observer.stop();
      transport.close();
    });
    const fleet = startFleetAgent(plane, layout, REBOOT_MS);
    stops.push(fleet.stop);
    const before = { cpuMs: coordinator.cpuMs(), requests: auditedRequests(audit).total };

    t = Date.now();
    fleet.agent.setRebootNeeded(
      layout.specs.map((s) => s.name),
      true,
    );
    const progress = setInterval(() => {
      const c = fleet.agent.counts;
      log(`fleet: ${c.rebootsDone}/${NODES} rebooted, ${c.rebooting} rebooting, load average ${load()}`);
    }, 30_000);
    await observer.rolledOut().finally(() => clearInterval(progress));
    const wallMs = Date.now() - t;
    const medians = observer.timeline.medians(groupOrder(layout));
    log(`fleet: ${formatPhases(medians)}`);
    log(`fleet: ${formatSteps(medians)}`);
    log(`fleet: ${rolloutEdges(observer, layout, t)}`);
    await fleet.agent.settle();
    const cpuMs = coordinator.cpuMs() - before.cpuMs;
    const peakRss = coordinator.rssPeakBytes();
    await new Promise((r) => setTimeout(r, 2_000)); // the audit log's batch is written
    const requests = auditedRequests(audit);
    const perReboot = (requests.total - before.requests) / NODES;
    const ideal = idealMs(layout, REBOOT_MS);
    const over = Math.max(...layout.groups.map((g) => (observer.most.get(g.name) ?? 0) - g.budget));
    log(
      `fleet: rolled out in ${(wallMs / 1000).toFixed(0)} s (ideal ${(ideal / 1000).toFixed(0)} s); coordinator ` +
        `${(cpuMs / 1000).toFixed(1)} CPU-s, RSS peak ${(peakRss / 1e6).toFixed(0)} MB, requests ${JSON.stringify(requests.byVerb)}; ` +
        `most in flight ${layout.groups.map((g) => `${observer.most.get(g.name) ?? 0}/${g.budget}`).join(' ')}; load average ${load()}`,
    );
    return rolloutRows({ wallMs, ideal, cpuMs, peakRss, perReboot, over }, `load average ${load()}`);
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await plane.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
