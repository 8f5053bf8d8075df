/**
 * A reboot rollout while the stack upgrades from A to B, on a simulated cluster: the real
 * coordinator (run beside its kwok Deployment pods, restarted when its template changes, as a
 * rollout replaces the leader) grants within the safe default groups; simulated agents follow
 * the protocol on their Node and reboot it through kwok. The control-plane node is held
 * mid-reboot until the agents' rollout has begun, so a reboot is in flight across the whole
 * coordinator rollout; the workers reboot during the agents' rollout. Checked at every Node event:
 * no group over its budget. Checked on the recorded events: the coordinator Deployment had rolled
 * out at B before any agent pod template changed. At the end: every node rebooted exactly once.
 */
import { useOwnControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol } from '@capstan/reboot-protocol';
import type { KubeObject } from '@capstan/runtime';
import { DaemonSet, Deployment, Node } from '@capstan/runtime/client';
import { eventually, WatchRecord } from '@capstan/runtime/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  CONTROL_PLANE_LABEL,
  completeAt,
  RebootGroupKind,
  type RebootStack,
  RebootStackType,
  rolloutOf,
} from '../src/index.js';
import { admin, condition, createStack, NAMESPACE, NODES, prepareCluster, stackWhen } from './helpers.js';
import { CoordinatorFollower, SimAgent } from './migration-harness.js';
import { catalogueWithB, VERSION_A, VERSION_B } from './version-b.js';

const env = useOwnControlPlane({ controllerManager: true, scheduler: true, kwok: true }, 'upgrade-reboots');
const A = capstanProtocol.annotations;
const stops: Array<() => Promise<void>> = [];

type NodeObject = Awaited<ReturnType<ReturnType<typeof admin>['get']>> & {
  spec?: { unschedulable?: boolean };
  status?: { conditions?: Array<{ type: string; status: string }> };
};

/** A node counts against its group's budget while granted, rebooting, cordoned or not Ready. */
const down = (n: NodeObject): boolean => {
  const a = n.metadata.annotations ?? {};
  const ready = n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  return (
    a[A.rebootOk] === 'true' || a[A.rebootInProgress] === 'true' || n.spec?.unschedulable === true || !ready
  );
};

/**
 * The etcd revision of an object's last write. Envtest has one etcd, so it orders events across
 * kinds (which separate watch streams do not).
 */
const revisionOf = (o: KubeObject): bigint => BigInt(o.metadata.resourceVersion ?? '0');

/** The budget of a group of `size` nodes, as the RebootGroup documents it (independent of the coordinator). */
const budgetOf = (maxUnavailable: number | string, size: number): number =>
  typeof maxUnavailable === 'number'
    ? maxUnavailable
    : Math.max(1, Math.floor((size * Number.parseInt(maxUnavailable, 10)) / 100));

beforeAll(async () => {
  stops.push(await prepareCluster(env, catalogueWithB()));
}, 120_000);
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

it('a reboot rollout during A → B: every group within budget at every Node event, coordinator rolled out before any agent template changed, every node rebooted once', async () => {
  const client = admin(env);
  const atA = (s: RebootStack) => s.status?.observedVersion === VERSION_A;
  await createStack(
    client,
    { version: VERSION_A, agent: { maxUnavailable: 1 } },
    atA,
    'the stack Available at A',
  );
  // The safe default groups: the control plane one at a time first, then the workers.
  const groups = await eventually(
    async () => {
      const { items } = await client.list(RebootGroupKind);
      return items.length === 2 ? items : undefined;
    },
    { what: 'the default RebootGroups' },
  );
  const isControlPlane = (n: { metadata: { labels?: Record<string, string> } }) =>
    n.metadata.labels?.[CONTROL_PLANE_LABEL] !== undefined;
  const members = (group: string) =>
    NODES.filter((n) => (group === 'control-plane') === isControlPlane({ metadata: n })).map((n) => n.name);
  const budgets = Object.fromEntries(
    groups.map((g) => {
      const name = g.metadata.name as string;
      return [name, budgetOf(g.spec.maxUnavailable as number | string, members(name).length)];
    }),
  );
  expect(budgets).toEqual({ 'control-plane': 1, workers: 1 });

  // Every Node event: the budget of each group, over the nodes as last seen.
  const nodes = new Map<string, NodeObject>();
  const worst: Record<string, number> = { 'control-plane': 0, workers: 0 };
  const overBudget: string[] = [];
  const nodeEvents = await WatchRecord.start(env.kubeConfig, Node, {
    onEvent: (n) => {
      nodes.set(n.metadata.name as string, n as NodeObject);
      for (const group of Object.keys(budgets)) {
        const downNow = members(group).filter((m) => {
          const node = nodes.get(m);
          return node !== undefined && down(node);
        });
        worst[group] = Math.max(worst[group] ?? 0, downNow.length);
        if (downNow.length > (budgets[group] ?? 0))
          overBudget.push(`${group} at rv ${n.metadata.resourceVersion}: ${downNow.join(', ')}`);
      }
    },
  });
  stops.push(() => nodeEvents.stop());
  const deployments = await WatchRecord.start(env.kubeConfig, Deployment, { namespace: NAMESPACE });
  stops.push(() => deployments.stop());
  // When the agent template first changes: which nodes are then mid-reboot.
  let inFlightAtAgentChange: string[] | undefined;
  const daemonSets = await WatchRecord.start(env.kubeConfig, DaemonSet, {
    namespace: NAMESPACE,
    onEvent: (ds) => {
      if (inFlightAtAgentChange || rolloutOf(ds as never).version !== VERSION_B) return;
      inFlightAtAgentChange = [...nodes.values()]
        .filter((n) => n.metadata.annotations?.[A.rebootInProgress] === 'true')
        .map((n) => n.metadata.name as string);
    },
  });
  stops.push(() => daemonSets.stop());

  const follower = new CoordinatorFollower(client, env.kubeConfig);
  follower.start();
  stops.push(() => follower.stop());
  const agents = NODES.map((n) => new SimAgent(client, env.plane, n.name));
  for (const a of agents) a.start();
  stops.push(async () => {
    for (const a of agents) await a.stop();
  });
  const controlPlane = agents.find((a) => a.name === 'cp-0') as SimAgent;
  controlPlane.hold = 'midReboot';
  for (const a of agents) await a.ask();
  await eventually(
    async () =>
      (await client.get(Node, { name: 'cp-0' })).metadata.annotations?.[A.rebootInProgress] === 'true'
        ? true
        : undefined,
    { what: 'the control-plane node granted and mid-reboot', timeoutMs: 60_000 },
  );

  await client.patch(RebootStackType, { name: 'capstan' }, 'merge', { spec: { version: VERSION_B } });
  await eventually(async () => (inFlightAtAgentChange ? true : undefined), {
    what: 'the agent DaemonSet template at B',
    timeoutMs: 120_000,
  });
  controlPlane.hold = 'none';
  const atB = (s: RebootStack) =>
    condition(s, 'Available')?.status === 'True' && s.status?.observedVersion === VERSION_B;
  const done = await stackWhen(client, atB, 'the stack Available at B', 180_000);
  await eventually(
    async () => {
      const { items } = await client.list(Node);
      const released = items.every(
        (n) =>
          n.metadata.annotations?.[A.rebootOk] !== 'true' &&
          n.metadata.annotations?.[A.rebootNeeded] !== 'true',
      );
      return released && agents.every((a) => a.reboots >= 1) ? true : undefined;
    },
    { what: 'every node rebooted and released', timeoutMs: 180_000 },
  );
  await nodeEvents.stop();

  // The budget held at every Node event, and the events were there to check.
  expect(overBudget).toEqual([]);
  expect(worst).toEqual({ 'control-plane': 1, workers: 1 });
  expect(nodeEvents.states.length).toBeGreaterThan(20);
  // Every node rebooted exactly once.
  expect(agents.map((a) => [a.name, a.reboots])).toEqual(NODES.map((n) => [n.name, 1]));
  // The reboot rollout ran through the upgrade: cp-0 was mid-reboot when the agents' template changed.
  expect(inFlightAtAgentChange).toEqual(['cp-0']);
  // The order, from the recorded events: the coordinator complete at B before the agent template changed.
  const agentChange = daemonSets.find((ds) => rolloutOf(ds as never).version === VERSION_B) as {
    metadata: object;
  };
  const coordinatorAtB = deployments.find((d) => completeAt(rolloutOf(d as never), VERSION_B, 'capstan'));
  expect(coordinatorAtB, 'a Deployment event with the coordinator complete at B').toBeDefined();
  expect(revisionOf(coordinatorAtB as never)).toBeLessThan(revisionOf(agentChange as never));
  // The status shows the order; the coordinator was restarted at B (a new leader) mid-rollout.
  expect(Date.parse(done.status?.coordinator?.completedAt ?? '')).toBeLessThanOrEqual(
    Date.parse(done.status?.agent?.completedAt ?? ''),
  );
  expect(follower.versions).toEqual([VERSION_A, VERSION_B]);
}, 600_000);
