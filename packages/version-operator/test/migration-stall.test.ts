/**
 * A FLUO → capstan migration whose agent rollout stalls: on one node the agent pod on the new
 * protocol can never be created (a ValidatingAdmissionPolicy refuses it, as a broken admission
 * webhook or quota would), so that node has no agent and the DaemonSet, bounded by maxUnavailable
 * 1, goes no further. The real coordinator has granted one
 * node and queued another. The stack turns Degraded (MigrationStalled) naming the phase and the
 * node; the groups stay paused, the request and the grant are kept on both sides; once the
 * refusal is lifted, the migration finishes by itself.
 */
import { refuseWrites } from '@capstan/envtest';
import { useOwnControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol, coordinatorKeys, FLUO_PREFIX, fluoProtocol } from '@capstan/reboot-protocol';
import { Node, Pod } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { PROTOCOL_ANNOTATION, RebootGroupKind, RebootStackType } from '../src/index.js';
import {
  admin,
  condition,
  createStack,
  FLUO_STACK,
  migratedToCapstan,
  NAMESPACE,
  NODES,
  prepareCluster,
  stackWhen,
} from './helpers.js';
import { CoordinatorFollower } from './migration-harness.js';
import { catalogueWithB } from './version-b.js';

const env = useOwnControlPlane({ controllerManager: true, scheduler: true, kwok: true }, 'stall');
/** The node whose new agent pod is refused. */
const STALLED = 'worker-0';
const STALL_MS = 4_000;
const stops: Array<() => Promise<void>> = [];

beforeAll(async () => {
  stops.push(await prepareCluster(env, catalogueWithB(), { migrationStallMs: STALL_MS }));
}, 120_000);
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

it('a stalled agent rollout: Degraded MigrationStalled naming the node, requests and grants kept, resumed once it clears', async () => {
  const client = admin(env);
  const keysOf = async (name: string) => (await client.get(Node, { name })).metadata.annotations ?? {};
  const [F, C] = [fluoProtocol.annotations, capstanProtocol.annotations];
  await createStack(
    client,
    FLUO_STACK,
    (s) => s.status?.observedProtocol === 'fluo',
    'the stack Available on FLUO keys',
  );
  await client.create(RebootGroupKind, {
    metadata: { name: 'all' },
    spec: { nodeSelector: {}, maxUnavailable: 1, grantTimeout: '30m' },
  });
  const follower = new CoordinatorFollower(client, env.kubeConfig);
  follower.start();
  stops.push(() => follower.stop());

  // The real coordinator grants worker-2 (nobody acts on it) and queues worker-1 behind the budget.
  const ask = (name: string) =>
    client.patch(Node, { name }, 'merge', { metadata: { annotations: { [F.rebootNeeded]: 'true' } } });
  await ask('worker-2');
  await eventually(async () => ((await keysOf('worker-2'))[F.rebootOk] === 'true' ? true : undefined), {
    what: 'worker-2 granted on FLUO keys',
    timeoutMs: 60_000,
  });
  await ask('worker-1');
  await eventually(
    async () => {
      const group = await client.get(RebootGroupKind, { name: 'all' });
      const queue = (group.status as { queue?: Array<{ node: string }> } | undefined)?.queue ?? [];
      return queue.some((q) => q.node === 'worker-1') ? true : undefined;
    },
    { what: 'worker-1 queued behind the budget', timeoutMs: 30_000 },
  );
  const grantedAt = (await keysOf('worker-2'))[coordinatorKeys.grantedAt];
  expect(grantedAt).toBeDefined();

  const lift = await refuseNewAgentPod(STALLED);
  onTestFinished(lift);
  await client.patch(RebootStackType, { name: 'capstan' }, 'merge', { spec: { protocol: 'capstan' } });
  const stalled = await stackWhen(
    client,
    (s) =>
      condition(s, 'Degraded')?.reason === 'MigrationStalled' &&
      s.status?.migration?.phase === 'SwitchingAgents',
    'the migration reported stalled in SwitchingAgents',
  );
  const message = condition(stalled, 'Degraded')?.message ?? '';
  expect(condition(stalled, 'Degraded')?.status).toBe('True');
  expect(message).toContain('from fluo to capstan has waited in SwitchingAgents since');
  expect(message).toContain(`no ready agent pod on node ${STALLED}`);
  expect(message).toContain(stalled.status?.migration?.waitingSince);
  // Held, not undone: the group is paused, the request and the grant are on both sides, nothing new.
  expect((await client.get(RebootGroupKind, { name: 'all' })).spec.paused).toBe(true);
  const [asking, granted] = [await keysOf('worker-1'), await keysOf('worker-2')];
  expect([asking[F.rebootNeeded], asking[C.rebootNeeded]]).toEqual(['true', 'true']);
  expect([asking[F.rebootOk], asking[C.rebootOk]].filter((v) => v === 'true')).toEqual([]);
  expect([granted[F.rebootOk], granted[C.rebootOk]]).toEqual(['true', 'true']);

  await lift();
  const done = await stackWhen(
    client,
    migratedToCapstan,
    'the migration to finish once the refusal is lifted',
    150_000,
  );
  expect(condition(done, 'Degraded')).toMatchObject({ status: 'False', reason: 'AsExpected' });
  expect((await client.get(RebootGroupKind, { name: 'all' })).spec.paused).toBe(false);
  // The grant is the same grant (its fence too); the request still waits on the one budget slot.
  const [after1, after2] = [await keysOf('worker-1'), await keysOf('worker-2')];
  expect(after2[C.rebootOk]).toBe('true');
  expect(after2[coordinatorKeys.grantedAt]).toBe(grantedAt);
  expect(after1[C.rebootNeeded]).toBe('true');
  expect(after1[C.rebootOk]).not.toBe('true');
  for (const node of NODES) {
    const left = Object.keys(await keysOf(node.name)).filter((k) => k.startsWith(FLUO_PREFIX));
    expect(left, node.name).toEqual([]);
  }
}, 420_000);

/** Refuses to create an agent pod on `capstan` for `node` (the DaemonSet pins its pods by node affinity). */
function refuseNewAgentPod(node: string): Promise<() => Promise<void>> {
  const agentPod = {
    metadata: { name: 'probe', namespace: NAMESPACE, annotations: { [PROTOCOL_ANNOTATION]: 'capstan' } },
    spec: {
      containers: [{ name: 'c', image: 'x' }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
          },
        },
      },
    },
  };
  const pinned = `object.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.exists(t, has(t.matchFields) && t.matchFields.exists(f, has(f.values) && f.values.exists(v, v == '${node}')))`;
  return refuseWrites(env.plane, {
    name: 'refuse-new-agent-pod',
    resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
    expression: `!(has(object.metadata.annotations) && object.metadata.annotations.exists(k, k == '${PROTOCOL_ANNOTATION}' && object.metadata.annotations[k] == 'capstan') && has(object.spec.affinity) && has(object.spec.affinity.nodeAffinity) && ${pinned})`,
    message: `no capstan agent pod on ${node} (test policy)`,
    probe: () => admin(env).create(Pod, agentPod as never, { dryRun: true }),
    timeoutMs: 20_000,
  });
}
