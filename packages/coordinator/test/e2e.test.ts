import { fileURLToPath } from 'node:url';
import { readManifests, serviceAccountUnder } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import { Client, type KubeObject, Manager } from '@capstan/runtime';
import { SharedInformer } from '@capstan/runtime/cache';
import { ClusterRole, ClusterRoleBinding, HttpTransport, Node } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addCoordinator,
  type CoordinatorHandle,
  FLEETLOCK_HOLDER_KEY,
  type RebootGroup,
  RebootGroupType,
  zincatiId,
} from '../src/index.js';
import { policyFor, policyInForce, removePolicy } from './policy-kit.js';
import { holdsSlot } from './sim-kit.js';
import { machineIdOf, TestAgent } from './test-agent.js';

const env = useControlPlane('coord');
const deploy = (path: string) => fileURLToPath(new URL(`../deploy/${path}`, import.meta.url));
const P = capstanProtocol;
const RUN = 'capstan.test/run';
const SA = 'capstan-coordinator';

let admin: Client;
let run: string;
let saClient: Client;
let policy: KubeObject[] | undefined;
let saKubeConfig: Awaited<ReturnType<typeof env.plane.userKubeConfig>>;
const cp = ['cp-0', 'cp-1', 'cp-2'];
const workers = Array.from({ length: 9 }, (_, i) => `w-${i}`);
const zincati = ['z-0', 'z-1', 'z-2'];
const full = (n: string) => `${run}-${n}`;
const budgets: Record<string, number> = {};

interface Running {
  manager: Manager;
  handle: CoordinatorHandle;
  stop: AbortController;
  done: Promise<void>;
}
const stopped: Running[] = [];
let current: Running | undefined;

function startCoordinator(identity: string): Running {
  const manager = Manager.create({
    kubeConfig: saKubeConfig,
    leaderElection: {
      id: 'capstan-coordinator',
      namespace: env.namespace,
      identity,
      leaseDurationMs: 3000,
      renewDeadlineMs: 2000,
      retryPeriodMs: 300,
    },
    metricsBindAddress: '0',
    healthProbeBindAddress: '127.0.0.1:0',
    logLevel: 'silent',
    eventSource: 'reboot.capstan.dev/coordinator',
  });
  const handle = addCoordinator(manager, {
    namespace: env.namespace,
    nodeSelector: `${RUN}=${run}`,
    // This run's groups only: other test files' groups on the shared control plane have gates
    // whose objects this identity may not read (403s), and statuses that are not ours to write.
    groupSelector: `${RUN}=${run}`,
    defaultGrantTimeoutMs: 60_000,
    resyncPeriodMs: 2000,
    fleetlock: { bindAddress: '127.0.0.1:0', waitMs: 1500 },
  });
  const stop = new AbortController();
  return { manager, handle, stop, done: manager.start(stop.signal) };
}

beforeAll(async () => {
  run = env.namespace;
  admin = new Client(new HttpTransport(env.kubeConfig));
  await env.plane.installCRDs([deploy('crds/rebootgroups.yaml')]);

  // The manifests, moved into this test's namespace, with cluster-scoped names made unique.
  const rbac = readManifests(deploy('rbac.yaml')) as Array<
    KubeObject & { subjects?: Array<{ namespace?: string }>; roleRef?: { name: string } }
  >;
  for (const obj of rbac) {
    if (obj.kind === 'ClusterRole' || obj.kind === 'ClusterRoleBinding')
      obj.metadata.name = `${obj.metadata.name}-${run}`;
    else obj.metadata.namespace = env.namespace;
    if (obj.kind === 'ClusterRoleBinding') (obj.roleRef as { name: string }).name = `${SA}-${run}`;
    for (const s of obj.subjects ?? []) s.namespace = env.namespace;
  }
  // Once every bound role is in force: the authorizer learns of new RBAC through its informers, and
  // on a loaded machine the first requests came before it did (403s the test then counted).
  saKubeConfig = await serviceAccountUnder(env.plane, { namespace: env.namespace, name: SA }, rbac);
  saClient = new Client(new HttpTransport(saKubeConfig));
  // The admission policy deploy/ ships, for this run's service account: the rollout runs under it.
  policy = policyFor(env.namespace);
  await env.plane.createObjects(policy);

  // The example groups, restricted to this run's nodes, plus a group for FleetLock clients.
  // Plain YAML read as the typed kind: the apiserver validates it on create.
  for (const g of readManifests(deploy('examples/rebootgroups.yaml')) as unknown[] as RebootGroup[]) {
    g.metadata.name = `${run}-${g.metadata.name}`;
    g.metadata.labels = { ...g.metadata.labels, [RUN]: run };
    g.spec.nodeSelector = { ...g.spec.nodeSelector, matchLabels: { [RUN]: run, pool: 'agents' } };
    await admin.create(RebootGroupType, g);
  }
  await admin.create(RebootGroupType, {
    metadata: { name: `${run}-zincati`, labels: { [RUN]: run } },
    spec: {
      nodeSelector: { matchLabels: { [RUN]: run, pool: 'zincati' } },
      order: 5,
      maxUnavailable: 1,
      grantTimeout: '60s',
    },
  });
  budgets[`${run}-control-plane`] = 1;
  budgets[`${run}-workers`] = 2; // 25% of 9, rounded down
  budgets[`${run}-zincati`] = 1;

  for (const n of [...cp, ...workers, ...zincati]) {
    const labels: Record<string, string> = { [RUN]: run, pool: zincati.includes(n) ? 'zincati' : 'agents' };
    if (cp.includes(n)) labels['node-role.kubernetes.io/control-plane'] = '';
    await admin.create(Node, { metadata: { name: full(n), labels } });
    await TestAgent.writeStatus(admin, full(n), true, 0);
  }
  await policyInForce(saClient, full(cp[0] as string));
});

afterAll(async () => {
  current?.stop.abort();
  await Promise.allSettled([current?.done, ...stopped.map((r) => r.done)]);
  for (const n of [...cp, ...workers, ...zincati]) await admin?.deleteIfExists(Node, { name: full(n) });
  for (const g of ['control-plane', 'workers', 'zincati'])
    await admin?.deleteIfExists(RebootGroupType, { name: `${run}-${g}` });
  await admin?.deleteIfExists(ClusterRole, { name: `${SA}-${run}` });
  await admin?.deleteIfExists(ClusterRoleBinding, { name: `${SA}-${run}` });
  if (policy) await removePolicy(admin, policy);
});

function groupOf(name: string): string {
  const short = name.slice(run.length + 1);
  if (cp.includes(short)) return `${run}-control-plane`;
  if (workers.includes(short)) return `${run}-workers`;
  return `${run}-zincati`;
}

/** In flight or unavailable, as an independent observer sees it. */
function inFlight(n: Node): boolean {
  const a = n.metadata.annotations ?? {};
  const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  return (
    holdsSlot(n, P) ||
    a[P.annotations.rebootInProgress] === 'true' ||
    n.spec?.unschedulable === true ||
    !ready
  );
}

describe('the coordinator on envtest, as its service account', () => {
  it('reboots 12 nodes in two groups within budgets and in order, surviving two kills mid-rollout', async () => {
    // An observer sees every write (one watch event each), and checks budget and order on each state.
    const nodes = new Map<string, Node>();
    const peak: Record<string, number> = {};
    const problems: string[] = [];
    let firstWorkerGrant = false;
    let cpGrants = 0;
    const observer = new SharedInformer(new HttpTransport(env.kubeConfig), Node, {
      labelSelector: `${RUN}=${run}`,
    });
    const see = (n: Node) => {
      nodes.set(n.metadata.name as string, n);
      const counts: Record<string, number> = {};
      for (const m of nodes.values())
        if (inFlight(m))
          counts[groupOf(m.metadata.name as string)] = (counts[groupOf(m.metadata.name as string)] ?? 0) + 1;
      for (const [g, c] of Object.entries(counts)) {
        peak[g] = Math.max(peak[g] ?? 0, c);
        if (c > (budgets[g] ?? 0)) problems.push(`${g}: ${c} in flight > ${budgets[g]}`);
      }
      const cpBusy = [...nodes.values()].filter(
        (m) =>
          groupOf(m.metadata.name as string) === `${run}-control-plane` &&
          (inFlight(m) || m.metadata.annotations?.[P.annotations.rebootNeeded] === 'true'),
      );
      const workerGranted = [...nodes.values()].filter(
        (m) => groupOf(m.metadata.name as string) === `${run}-workers` && holdsSlot(m, P),
      );
      if (workerGranted.length > 0) {
        firstWorkerGrant = true;
        if (cpBusy.length > 0)
          problems.push(
            `worker ${workerGranted[0]?.metadata.name} holds a slot while ${cpBusy.map((m) => m.metadata.name).join(',')} busy`,
          );
      }
    };
    observer.addEventHandler({
      onAdd: see,
      onUpdate: (old, n) => {
        if (
          groupOf(n.metadata.name as string) === `${run}-control-plane` &&
          old.metadata.annotations?.[P.annotations.rebootOk] !== 'true' &&
          n.metadata.annotations?.[P.annotations.rebootOk] === 'true'
        )
          cpGrants++;
        see(n);
      },
    });
    observer.start();
    await observer.waitForSync(10_000);

    const agents = [...cp, ...workers].map((n) => new TestAgent(admin, full(n)));
    for (const a of agents) a.start();
    const started = Date.now();
    current = startCoordinator('coordinator-a');
    // Every agent asks at once.
    for (const n of [...cp, ...workers]) {
      await admin.patch(Node, { name: full(n) }, 'merge', {
        metadata: { annotations: { [P.annotations.rebootNeeded]: 'true' } },
      });
    }
    // Kill 1: after the second control-plane grant; kill 2: after the first worker grant.
    for (const [when, identity] of [
      [() => cpGrants >= 2, 'coordinator-b'],
      [() => firstWorkerGrant, 'coordinator-c'],
    ] as const) {
      await eventually(async () => when(), { what: 'kill point', timeoutMs: 60_000 });
      const killed = current as Running;
      killed.stop.abort(); // not awaited: the next one starts at once
      stopped.push(killed);
      current = startCoordinator(identity);
    }
    await eventually(
      async () =>
        [...cp, ...workers].every((n) => {
          const node = nodes.get(full(n));
          const a = node?.metadata.annotations ?? {};
          return (
            node &&
            a[coordinatorKeys.rebootedAt] !== undefined &&
            !holdsSlot(node, P) &&
            !node.spec?.unschedulable &&
            a[P.annotations.rebootNeeded] === 'false'
          );
        }),
      { what: 'every node rebooted', timeoutMs: 90_000 },
    );
    const elapsed = Date.now() - started;
    await Promise.all(agents.map((a) => a.stop()));
    await observer.stop();

    expect(problems).toEqual([]);
    expect(agents.every((a) => a.boots === 1)).toBe(true);
    for (const n of [...cp, ...workers])
      expect(nodes.get(full(n))?.status?.nodeInfo?.bootID).toBe(`${full(n)}-boot-1`);
    // The budgets were used, not just respected.
    expect(peak[`${run}-control-plane`]).toBe(1);
    expect(peak[`${run}-workers`]).toBe(2);
    // Group status tells the story.
    const workersGroup = await eventually(
      async () => {
        const g = await admin.get(RebootGroupType, { name: `${run}-workers` });
        return g.status?.rebooted === 9 && g.status.inFlight === 0 ? g : undefined;
      },
      { timeoutMs: 30_000 },
    );
    expect(workersGroup.status).toMatchObject({ nodes: 9, maxUnavailable: 2, asking: 0, queue: [] });
    expect(workersGroup.status?.conditions?.find((c) => c.type === 'Valid')?.status).toBe('True');
    expect(elapsed).toBeLessThan(90_000);
  }, 180_000);

  async function fleetlock(
    endpoint: 'pre-reboot' | 'steady-state',
    id: string,
    group: string,
    header = true,
  ) {
    const port = await (current as Running).handle.fleetlock?.ready;
    const res = await fetch(`http://127.0.0.1:${port}/v1/${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(header ? { 'fleet-lock-protocol': 'true' } : {}) },
      body: JSON.stringify({ client_params: { id, group } }),
    });
    return { status: res.status, body: (await res.json()) as { kind?: string; value?: string } };
  }
  const node = (n: string) => admin.get(Node, { name: full(n) });

  it('serves FleetLock over HTTP from the same budget', async () => {
    const group = `${run}-zincati`;
    const [z0, z1, z2] = zincati.map((n) => machineIdOf(full(n))) as [string, string, string];

    expect(await fleetlock('pre-reboot', z0, group, false)).toMatchObject({
      status: 400,
      body: { kind: 'failed_missing_header' },
    });
    expect(await fleetlock('pre-reboot', 'no-such-machine', group)).toMatchObject({
      status: 404,
      body: { kind: 'failed_node_lookup' },
    });
    expect(await fleetlock('pre-reboot', z0, 'default')).toMatchObject({
      status: 409,
      body: { kind: 'failed_group_mismatch' },
    });

    // z-0 takes the group's only slot (raw machine ID) and is re-entrant.
    expect((await fleetlock('pre-reboot', z0, group)).status).toBe(200);
    const held = await node('z-0');
    expect(held.metadata.annotations?.[P.annotations.rebootOk]).toBe('true');
    expect(held.metadata.annotations?.[FLEETLOCK_HOLDER_KEY]).toBe(z0);
    expect((await fleetlock('pre-reboot', z0, group)).status).toBe(200);

    // z-1 (Zincati's app-specific ID) waits: the semaphore is full.
    const z1Zincati = zincatiId(z1) as string;
    const full1 = await fleetlock('pre-reboot', z1Zincati, group);
    expect(full1).toMatchObject({ status: 409, body: { kind: 'failed_lock_semaphore_full' } });
    expect(full1.body.value).toContain('BudgetExhausted');

    // Steady-state from a non-holder changes nothing.
    const before = (await node('z-0')).metadata.resourceVersion;
    expect((await fleetlock('steady-state', z2, group)).status).toBe(200);
    expect((await node('z-2')).metadata.annotations?.[P.annotations.rebootNeeded]).toBeUndefined();
    expect((await node('z-0')).metadata.resourceVersion).toBe(before);

    // The holder releases without rebooting: the slot frees and z-1 gets it.
    expect((await fleetlock('steady-state', z0, group)).status).toBe(200);
    const released = await node('z-0');
    expect(released.metadata.annotations?.[P.annotations.rebootOk]).toBeUndefined();
    expect(released.metadata.annotations?.[FLEETLOCK_HOLDER_KEY]).toBeUndefined();
    expect((await fleetlock('pre-reboot', z1Zincati, group)).status).toBe(200);

    // An annotation-protocol request on z-2 shares the budget: it waits while z-1 holds.
    await admin.patch(Node, { name: full('z-2') }, 'merge', {
      metadata: { annotations: { [P.annotations.rebootNeeded]: 'true' } },
    });
    const waiting = await eventually(
      async () => {
        const g = await admin.get(RebootGroupType, { name: group });
        return g.status?.queue.find((q) => q.node === full('z-2'));
      },
      { timeoutMs: 30_000 },
    );
    expect(waiting.reason).toBe('BudgetExhausted');
    expect((await node('z-2')).metadata.annotations?.[P.annotations.rebootOk]).toBeUndefined();

    // z-1 reboots (new boot ID), then reports steady state: verified, released, completed.
    await TestAgent.writeStatus(admin, full('z-1'), true, 1);
    expect((await fleetlock('steady-state', z1Zincati, group)).status).toBe(200);
    await eventually(
      async () => {
        const a = (await node('z-1')).metadata.annotations ?? {};
        return a[coordinatorKeys.rebootedAt] !== undefined && a[P.annotations.rebootOk] === undefined;
      },
      { what: 'z-1 completed', timeoutMs: 20_000 },
    );
    // Now z-2's agent gets the slot.
    const agent = new TestAgent(admin, full('z-2'));
    agent.start();
    await eventually(
      async () => (await node('z-2')).metadata.annotations?.[coordinatorKeys.rebootedAt] !== undefined,
      { what: 'z-2 rebooted', timeoutMs: 20_000 },
    );
    await agent.stop();
    expect(agent.boots).toBe(1);

    const text = await (current as Running).manager.metrics.registry.metrics();
    expect(text).toMatch(
      /capstan_fleetlock_requests_total\{endpoint="pre-reboot",result="failed_lock_semaphore_full"\} [1-9]/,
    );
  }, 60_000);

  it('ran as its service account with no 403, counted grants and reboot durations, and recorded events', async () => {
    for (const r of [...stopped, current as Running]) {
      const text = await r.manager.metrics.registry.metrics();
      expect(text).toMatch(/rest_client_requests_total\{[^}]*code="200"/);
      expect(text).not.toMatch(/rest_client_requests_total\{[^}]*code="403"/);
      // Each of the three coordinators (two killed mid-rollout) granted reboots itself.
      expect(text).toMatch(/capstan_coordinator_grants_total\{group="[^"]+"\} [1-9]/);
    }
    const text = await (current as Running).manager.metrics.registry.metrics();
    expect(text).toMatch(/capstan_coordinator_grants_total\{group="[^"]+"\} [1-9]/);
    expect(text).toMatch(/capstan_coordinator_reboot_duration_seconds_count\{group="[^"]+"\} [1-9]/);
    expect(text).toMatch(/capstan_coordinator_nodes\{group="[^"]*-workers",state="idle"\} 9/);
    // Its identity really is limited: it may not read Secrets.
    await expect(
      saClient.list(
        { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
        { namespace: env.namespace },
      ),
    ).rejects.toMatchObject({ code: 403 });
    const events = await admin.list(
      { group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', namespaced: true },
      { namespace: 'default' },
    );
    const granted = events.items.filter(
      (e) =>
        (e as { reason?: string }).reason === 'RebootGranted' &&
        String((e as { regarding?: { name?: string } }).regarding?.name).startsWith(run),
    );
    expect(granted.length).toBeGreaterThanOrEqual(12);
  });
});
