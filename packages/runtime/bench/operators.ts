/**
 * The reference operators' hot paths as rows with absolute targets:
 *  - the coordinator's plan over 5,000 and 20,000 nodes in 20 groups (pure; median of repeated
 *    rounds);
 *  - a FleetLock round trip under 200 concurrent clients (the Go program's load generator), against
 *    a coordinator process started as its image and Deployment start it (the bundle, the image's
 *    Node.js options) with FleetLock on (p99 over every request).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  COORDINATOR_NODE_OPTIONS,
  type NamedRebootGroup,
  type NodeSnapshot,
  plan,
} from '@capstan/coordinator';
import type { ControlPlane } from '@capstan/envtest';
import { capstanProtocol, coordinatorKeys, formatTimestamp } from '@capstan/reboot-protocol';
import { HttpTransport, Node } from '@capstan/runtime/client';
import { runProbe } from './baseline.js';
import { loadBundler } from './bundler.js';
import { coordinatorCrds, freePort, OperatorProcess } from './operator-process.js';
import { type AbsoluteRow, median } from './table.js';

const GROUPS = 20;
const CLIENTS = 200;
const REQUESTS_PER_CLIENT = 10;
const WARM_UP_REQUESTS_PER_CLIENT = 50;
const A = capstanProtocol.annotations;

/** `count` nodes over 20 groups: 10% asking, one granted and rebooting per group, the rest idle. */
function fleet(now: number, count: number): { nodes: NodeSnapshot[]; groups: NamedRebootGroup[] } {
  const groups = Array.from({ length: GROUPS }, (_, g) => ({
    name: `pool-${g}`,
    spec: { nodeSelector: { matchLabels: { pool: String(g) } }, maxUnavailable: '10%', order: g % 4 },
  }));
  const nodes = Array.from({ length: count }, (_, i): NodeSnapshot => {
    const name = `node-${i}`;
    const annotations: Record<string, string> = {};
    if (i % 10 === 0) {
      annotations[A.rebootNeeded] = 'true';
      annotations[coordinatorKeys.requestedAt] = formatTimestamp(now - i * 1000);
    }
    if (i < GROUPS) {
      annotations[A.rebootOk] = 'true';
      annotations[coordinatorKeys.grantedAt] = formatTimestamp(now - 60_000);
      annotations[coordinatorKeys.grantedBootId] = `${name}-boot-1`;
    }
    return {
      name,
      resourceVersion: String(i + 1),
      labels: { pool: String(i % GROUPS), 'kubernetes.io/hostname': name },
      annotations,
      unschedulable: false,
      conditions: { Ready: 'True' },
      bootID: `${name}-boot-1`,
    };
  });
  return { nodes, groups };
}

/**
 * A planner row: median of 30 plans (after 5 to warm the JIT) over the same fleet of `count`
 * nodes, against `limitMs` (issue 48: < 10 ms at 5,000 nodes, < 50 ms at 20,000).
 */
export function plannerRow(count: number, limitMs: number): AbsoluteRow {
  const now = Date.UTC(2026, 0, 5, 12, 0, 0);
  const input = { ...fleet(now, count), now };
  for (let i = 0; i < 5; i++) plan(input); // warm the JIT
  const times: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    const p = plan(input);
    times.push(performance.now() - t);
    if (Object.keys(p.membership).length !== count) throw new Error('plan lost nodes');
  }
  return {
    name: `coordinator plan, ${count} nodes/${GROUPS} groups`,
    value: median(times),
    unit: 'ms',
    goal: '<',
    limit: limitMs,
    statistic: `median of 30, load average ${loadavg()[0]?.toFixed(1)}`,
  };
}

/** What the Go load generator prints (`baseline fleetlock`, go/fleetlock.go). */
interface FleetLockLoad {
  requests: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  statuses: Record<string, number>;
  errors: number;
  newConnections: number;
  cpuMs: number;
}

/** One steady-state from this process, to wait for the server (leadership, warm-up): its status. */
async function steadyStateStatus(port: number, id: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/v1/steady-state`, {
    method: 'POST',
    headers: { 'fleet-lock-protocol': 'true', 'content-type': 'application/json' },
    body: JSON.stringify({ client_params: { id, group: 'default' } }),
  });
  await res.arrayBuffer();
  return res.status;
}

/**
 * The FleetLock row: p99 of every steady-state request of 200 concurrent clients.
 *
 * The clients are the Go program's `fleetlock` mode, not this process: real clients (Zincati) are
 * separate processes on separate machines, and a Node HTTP client here would share this event loop
 * and count its own cost (in the profiles, more than the server's) into every round trip. Like
 * `hey` or `wrk`, it gives each client one kept-alive connection, opened by an untimed first
 * request, then runs a closed loop of 10 steady-state requests per client, p99 over all 2,000.
 * After a warm-up round (50 a client), `runs` such rounds; the row is their median p99.
 */
export async function fleetlockRow(
  plane: ControlPlane,
  go: string,
  runs: number,
  log: (line: string) => void,
): Promise<AbsoluteRow> {
  await plane.installCRDs([coordinatorCrds]);
  const transport = new HttpTransport(plane.kubeConfig);
  const machineIds = Array.from({ length: CLIENTS }, () => randomUUID().replaceAll('-', ''));
  await Promise.all(
    machineIds.map(async (machineID, i) => {
      const name = `fleetlock-${i}`;
      await transport.create(Node, { apiVersion: 'v1', kind: 'Node', metadata: { name } });
      await transport.patch(
        Node,
        { name },
        'merge',
        {
          status: {
            nodeInfo: { machineID, bootID: `${name}-boot-1` },
            conditions: [{ type: 'Ready', status: 'True' }],
          },
        },
        { subresource: 'status' },
      );
    }),
  );
  transport.close();
  const port = await freePort();
  // As its image starts it: the bundle, with the image's Node.js options.
  const entry = await (await loadBundler()).bundleOperator('coordinator');
  const coordinator = await OperatorProcess.start(
    'coordinator (FleetLock)',
    entry,
    [
      '--leader-elect',
      '--leader-election-id=bench-fleetlock',
      '--metrics-bind-address=0',
      `--fleetlock-bind-address=127.0.0.1:${port}`,
    ],
    { KUBECONFIG: plane.kubeconfigPath, POD_NAMESPACE: 'default' },
    COORDINATOR_NODE_OPTIONS,
  );
  let dir: string | undefined;
  try {
    await coordinator.ready();
    // Wait for leadership (FleetLock is a leader-only runnable) and warm the server up.
    for (let i = 0; ; i++) {
      if ((await steadyStateStatus(port, machineIds[0] as string).catch(() => 0)) === 200) break;
      if (i > 300) throw new Error('FleetLock did not come up within 60 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    // Steady-state from every client: each request parses, finds the client's node in the cache,
    // checks its group and whether it holds the lock (none does: nothing is written).
    dir = await mkdtemp(join(tmpdir(), 'capstan-bench-fleetlock-'));
    const idsFile = join(dir, 'ids');
    await writeFile(idsFile, `${machineIds.join('\n')}\n`);
    const run = async (what: string, perClient: number): Promise<FleetLockLoad> => {
      const cpuBefore = coordinator.cpuMs();
      const load = (await runProbe(go, [
        'fleetlock',
        `http://127.0.0.1:${port}`,
        idsFile,
        String(perClient),
      ])) as unknown as FleetLockLoad;
      const serverCpuMs = coordinator.cpuMs() - cpuBefore; // includes the untimed connects
      log(
        `fleetlock ${what}: ${load.requests} requests in ${load.seconds.toFixed(2)} s (${load.perSecond.toFixed(0)}/s), ` +
          `p50 ${load.p50Ms.toFixed(1)} ms, p90 ${load.p90Ms.toFixed(1)} ms, p99 ${load.p99Ms.toFixed(1)} ms, ` +
          `max ${load.maxMs.toFixed(1)} ms; CPU: coordinator ${serverCpuMs.toFixed(0)} ms ` +
          `(${((serverCpuMs * 1000) / (load.requests + CLIENTS)).toFixed(0)} µs/request incl. connects), ` +
          `clients ${load.cpuMs.toFixed(0)} ms; statuses ${JSON.stringify(load.statuses)}, ` +
          `${load.newConnections} reconnects, load average ${loadavg()[0]?.toFixed(2)}`,
      );
      return load;
    };
    // A coordinator serves its clients for days: a first round of the same load, longer (logged, not
    // the row), warms the JIT, so the row measures the server's steady state, not V8 compiling it.
    await run('warm-up', WARM_UP_REQUESTS_PER_CLIENT);
    const p99s: number[] = [];
    for (let i = 0; i < runs; i++) {
      const load = await run(`measured ${i + 1}/${runs}`, REQUESTS_PER_CLIENT);
      const ok = Object.keys(load.statuses).length === 1 && load.statuses['200'] === load.requests;
      if (!ok || load.errors > 0 || load.requests !== CLIENTS * REQUESTS_PER_CLIENT)
        throw new Error(`FleetLock answered errors under load: ${JSON.stringify(load)}`);
      p99s.push(load.p99Ms);
    }
    return {
      name: `FleetLock round trip, ${CLIENTS} clients`,
      value: median(p99s),
      unit: 'ms',
      goal: '<',
      limit: 50,
      statistic: `median p99 of ${runs}`,
    };
  } finally {
    await coordinator.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}
