/**
 * The reference operators' hot paths as rows with absolute targets:
 *  - the coordinator's plan over 5,000 nodes in 20 groups (pure; median of repeated rounds);
 *  - a FleetLock round trip under 200 concurrent clients, against a coordinator process started as
 *    its Deployment starts it with FleetLock on (p99 over every request).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { join } from 'node:path';
import { type NamedRebootGroup, type NodeSnapshot, plan } from '@capstan/coordinator';
import type { ControlPlane } from '@capstan/envtest';
import { capstanProtocol, coordinatorKeys, formatTimestamp } from '@capstan/reboot-protocol';
import { HttpTransport, Node } from '@capstan/runtime/client';
import { coordinatorCrds, freePort, OperatorProcess, packagesDir } from './operator-process.js';
import { type AbsoluteRow, median, percentile } from './table.js';

const NODES = 5_000;
const GROUPS = 20;
const CLIENTS = 200;
const REQUESTS_PER_CLIENT = 10;
const A = capstanProtocol.annotations;

/** 5,000 nodes over 20 groups: 10% asking, one granted and rebooting per group, the rest idle. */
function fleet(now: number): { nodes: NodeSnapshot[]; groups: NamedRebootGroup[] } {
  const groups = Array.from({ length: GROUPS }, (_, g) => ({
    name: `pool-${g}`,
    spec: { nodeSelector: { matchLabels: { pool: String(g) } }, maxUnavailable: '10%', order: g % 4 },
  }));
  const nodes = Array.from({ length: NODES }, (_, i): NodeSnapshot => {
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

/** The planner row: median of 30 plans (after 5 to warm the JIT) over the same fleet. */
export function plannerRow(): AbsoluteRow {
  const now = Date.UTC(2026, 0, 5, 12, 0, 0);
  const input = { ...fleet(now), now };
  for (let i = 0; i < 5; i++) plan(input); // warm the JIT
  const times: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    const p = plan(input);
    times.push(performance.now() - t);
    if (Object.keys(p.membership).length !== NODES) throw new Error('plan lost nodes');
  }
  return {
    name: `coordinator plan, ${NODES} nodes/${GROUPS} groups`,
    value: median(times),
    unit: 'ms',
    goal: '<',
    limit: 20,
    statistic: 'median',
  };
}

/**
 * The clients' connections: one kept-alive socket per client, as each Zincati holds its own. Plain
 * node:http rather than fetch, whose own cost per request (undici, in this process) was twice the
 * server's in the profiles and counted into every round trip.
 */
const clients = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });

/** One FleetLock request; resolves with its round-trip time and status. */
function fleetlockRequest(port: number, endpoint: string, id: string): Promise<[number, number]> {
  const t = performance.now();
  const body = JSON.stringify({ client_params: { id, group: 'default' } });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: `/v1/${endpoint}`,
        method: 'POST',
        agent: clients,
        headers: {
          'fleet-lock-protocol': 'true',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve([performance.now() - t, res.statusCode ?? 0]));
        res.once('error', reject);
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

/** The FleetLock row: p99 of every steady-state request of 200 concurrent clients. */
export async function fleetlockRow(plane: ControlPlane, log: (line: string) => void): Promise<AbsoluteRow> {
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
  const entry = join(packagesDir, 'coordinator', 'dist', 'main.js');
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
  );
  try {
    await coordinator.ready();
    // Wait for leadership (FleetLock is a leader-only runnable) and warm the server up.
    for (let i = 0; ; i++) {
      const ok = await fleetlockRequest(port, 'steady-state', machineIds[0] as string).then(
        ([, s]) => s === 200,
        () => false,
      );
      if (ok) break;
      if (i > 300) throw new Error('FleetLock did not come up within 60 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    // Each client connects once, untimed (clients connect over minutes, not in one millisecond:
    // 200 simultaneous connects measure the kernel's SYN queue, not the server).
    for (let i = 0; i < CLIENTS; i += 20) {
      await Promise.all(machineIds.slice(i, i + 20).map((id) => fleetlockRequest(port, 'steady-state', id)));
    }
    // Steady-state from every client: each request parses, finds the client's node in the cache,
    // checks its group and whether it holds the lock (none does: nothing is written).
    const times: number[] = [];
    const statuses = new Map<number, number>();
    const burst = performance.now();
    await Promise.all(
      machineIds.map(async (id) => {
        for (let r = 0; r < REQUESTS_PER_CLIENT; r++) {
          const [ms, status] = await fleetlockRequest(port, 'steady-state', id);
          times.push(ms);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }),
    );
    const seconds = (performance.now() - burst) / 1000;
    log(
      `fleetlock: ${times.length} requests in ${seconds.toFixed(1)} s (${(times.length / seconds).toFixed(0)}/s), ` +
        `p50 ${percentile(times, 50).toFixed(1)} ms, statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    if (statuses.size !== 1 || !statuses.has(200)) throw new Error('FleetLock answered errors under load');
    return {
      name: `FleetLock round trip, ${CLIENTS} clients`,
      value: percentile(times, 99),
      unit: 'ms',
      goal: '<',
      limit: 50,
      statistic: 'p99',
    };
  } finally {
    clients.destroy();
    await coordinator.stop();
  }
}
