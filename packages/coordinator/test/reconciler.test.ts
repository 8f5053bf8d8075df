/**
 * The reconciler, the grant fence and the wiring on the test kit, scenario by scenario.
 */

import { capstanProtocol, coordinatorKeys, fluoProtocol } from '@capstan/reboot-protocol';
import { Client, Manager, parseStandardOptions } from '@capstan/runtime';
import { Event, Lease, Node } from '@capstan/runtime/client';
import { FakeCluster, ManualClock } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import {
  addCoordinator,
  addCoordinatorFlags,
  type CoordinatorFlags,
  CoordinatorReconciler,
  clientMatchesMachine,
  coordinatorOptionsFromFlags,
  FENCE_PENDING_KEY,
  FENCE_POISON_KEY,
  GrantFence,
  plan,
  type RebootGroup,
  RebootGroupType,
  snapshotNode,
  type World,
  zincatiId,
} from '../src/index.js';

const A = capstanProtocol.annotations;
const START = Date.UTC(2025, 0, 6, 12, 0, 0); // Monday 12:00 UTC
const NS = 'capstan-system';

function cluster(clock: ManualClock) {
  return new FakeCluster({ clock, kinds: [Node, RebootGroupType, Lease] });
}

async function addNode(
  fake: FakeCluster,
  name: string,
  annotations: Record<string, string> = {},
  labels: Record<string, string> = {},
  ready = true,
) {
  fake.seed(Node, { metadata: { name, annotations, labels } });
  await fake.patch(
    Node,
    { name },
    'merge',
    {
      status: {
        conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
        nodeInfo: { bootID: `${name}-boot`, machineID: `m-${name}` },
      },
    },
    { subresource: 'status' },
  );
}

function world(fake: FakeCluster): World {
  return { nodes: fake.objects(Node), groups: fake.objects(RebootGroupType) };
}

function coordinator(fake: FakeCluster, clock: ManualClock, read?: () => World) {
  return new CoordinatorReconciler(
    { namespace: NS, defaultGrantTimeoutMs: 10 * 60_000 },
    { client: new Client(fake), clock, ...(read ? { read } : {}) },
  );
}

describe('conditional writes and the grant fence', () => {
  it('does not take a slot from a stale snapshot that missed a node going NotReady', async () => {
    const clock = new ManualClock(START);
    const fake = cluster(clock);
    await addNode(fake, 'a', { [A.rebootNeeded]: 'true' });
    await addNode(fake, 'b');
    const stale = world(fake);
    // After the snapshot, b goes NotReady: the default group's only slot is gone.
    await fake.patch(
      Node,
      { name: 'b' },
      'merge',
      { status: { conditions: [{ type: 'Ready', status: 'False' }] } },
      { subresource: 'status' },
    );
    // Planned from the stale snapshot, a would be granted — and a's own write would pass its precondition.
    const stalePlan = plan({ nodes: stale.nodes.map(snapshotNode), groups: [], now: START });
    expect(stalePlan.writes.some((w) => w.node === 'a' && w.consumesBudget)).toBe(true);

    const outcome = await coordinator(fake, clock, () => stale).round();
    expect(outcome.applied.filter((w) => w.consumesBudget)).toEqual([]);
    expect(fake.getObject(Node, { name: 'a' })?.metadata.annotations?.[A.rebootOk]).toBeUndefined();
    expect(
      fake.getObject(Node, { name: 'a' })?.metadata.labels?.[capstanProtocol.labels.beforeReboot],
    ).toBeUndefined();
  });

  it('requeues on a conflict and writes nothing from a snapshot that is stale about the node itself', async () => {
    const clock = new ManualClock(START);
    const fake = cluster(clock);
    await addNode(fake, 'a', { [A.rebootNeeded]: 'true' });
    await addNode(fake, 'b', {}, {}, false); // takes the default group's slot: a is only stamped
    const stale = world(fake);
    await fake.patch(Node, { name: 'a' }, 'merge', {
      metadata: { annotations: { [A.rebootPaused]: 'true' } },
    });
    const c = coordinator(fake, clock, () => stale);
    const outcome = await c.round();
    expect(outcome.stopped).toBe('node-conflict');
    expect(await c.reconcile({ name: 'cluster' })).toEqual({ requeue: true });
    expect(
      fake.getObject(Node, { name: 'a' })?.metadata.annotations?.[coordinatorKeys.requestedAt],
    ).toBeUndefined();
  });

  it('poisons a claimed write that has not landed, so a slow coordinator can never apply it', async () => {
    const clock = new ManualClock(START);
    const fake = cluster(clock);
    await addNode(fake, 'a', { [A.rebootNeeded]: 'true' });
    await addNode(fake, 'b', { [A.rebootNeeded]: 'true' });
    // Coordinator "slow" claims a grant of a, then stalls before writing it.
    const slowClient = new Client(fake);
    const fence = new GrantFence(slowClient, clock, NS);
    const begun = await fence.begin();
    if (!begun.ok) throw new Error('fence');
    const a = fake.getObject(Node, { name: 'a' }) as Node;
    expect((await fence.claim(begun.value, 'a', a.metadata.resourceVersion as string)).ok).toBe(true);
    expect(
      fake.getObject(Lease, { namespace: NS, name: 'capstan-coordinator-fence' })?.metadata.annotations?.[
        FENCE_PENDING_KEY
      ],
    ).toContain('"node":"a"');

    // Another coordinator runs meanwhile: it settles the pending claim before planning.
    await coordinator(fake, clock).round();
    const after = fake.getObject(Node, { name: 'a' }) as Node;
    expect(after.metadata.annotations?.[FENCE_POISON_KEY]).toBe(a.metadata.resourceVersion);
    // The slow coordinator's write now fails its precondition.
    await expect(
      slowClient.patch(Node, { name: 'a' }, 'merge', {
        metadata: { resourceVersion: a.metadata.resourceVersion, annotations: { [A.rebootOk]: 'true' } },
      }),
    ).rejects.toMatchObject({ code: 409 });
    // And a stale claim (from before the other coordinator's claims) is refused.
    expect((await fence.claim(begun.value, 'b', '1')).ok).toBe(false);
  });
});

describe('status, findings and requeues', () => {
  it('writes group status once, reports invalid specs, nodes in two groups and garbage, and never throws on garbage', async () => {
    const clock = new ManualClock(START);
    const fake = cluster(clock);
    fake.seed(RebootGroupType, {
      metadata: { name: 'x' },
      spec: { nodeSelector: { matchLabels: { pool: 'p' } }, maxUnavailable: 1 },
    } as RebootGroup);
    fake.seed(RebootGroupType, {
      metadata: { name: 'y' },
      spec: { nodeSelector: { matchLabels: { zone: 'z' } }, order: 1 },
    } as RebootGroup);
    fake.seed(RebootGroupType, {
      metadata: { name: 'bad' },
      spec: {
        nodeSelector: { matchLabels: { nothing: 'here' } },
        maxUnavailable: '250%',
        windows: [{ start: '25:00', end: '01:00', timeZone: 'Mars/Base' }],
      },
    } as unknown as RebootGroup);
    await addNode(fake, 'both', { [A.rebootNeeded]: 'true' }, { pool: 'p', zone: 'z' });
    await addNode(
      fake,
      'junk',
      {
        [A.rebootNeeded]: 'maybe',
        [A.rebootOk]: '¯\\_(ツ)_/¯',
        [coordinatorKeys.requestedAt]: 'yesterday',
        [coordinatorKeys.grantedAt]: '-1',
      },
      { pool: 'p' },
    );
    const c = coordinator(fake, clock);
    const first = await c.round();
    expect(first.statusWrites).toBe(3);
    const x = fake.getObject(RebootGroupType, { name: 'x' }) as RebootGroup;
    const degraded = x.status?.conditions?.find((k) => k.type === 'Degraded');
    expect(degraded?.status).toBe('True');
    expect(degraded?.message).toContain('matches groups x, y');
    expect(degraded?.message).toContain('is not allowed');
    expect(x.status?.nodes).toBe(2);
    const bad = fake.getObject(RebootGroupType, { name: 'bad' }) as RebootGroup;
    const valid = bad.status?.conditions?.find((k) => k.type === 'Valid');
    expect(valid).toMatchObject({ status: 'False', reason: 'InvalidSpec' });
    expect(valid?.message).toContain('Mars/Base');
    // Garbage our own keys held was cleaned up; an unchanged world then writes nothing.
    await c.round();
    await c.round();
    const patches = fake.requestCount('patch');
    const quiet = await c.round();
    expect(quiet.applied).toEqual([]);
    expect(quiet.statusWrites).toBe(0);
    expect(fake.requestCount('patch')).toBe(patches);
    expect(
      fake.getObject(Node, { name: 'junk' })?.metadata.annotations?.[coordinatorKeys.requestedAt],
    ).toBeUndefined();
  });

  it('requeues for the next grant deadline and the next window opening', async () => {
    const clock = new ManualClock(START);
    const fake = cluster(clock);
    fake.seed(RebootGroupType, {
      metadata: { name: 'nights' },
      spec: { nodeSelector: { matchLabels: { pool: 'n' } }, windows: [{ start: '12:07', end: '13:00' }] },
    } as RebootGroup);
    await addNode(fake, 'n1', { [A.rebootNeeded]: 'true' }, { pool: 'n' });
    const c = new CoordinatorReconciler(
      { namespace: NS, defaultGrantTimeoutMs: 10 * 60_000, resyncPeriodMs: 30 * 60_000 },
      { client: new Client(fake), clock },
    );
    // Outside the window: wake when it opens (12:07), not at the resync period.
    await c.round();
    expect((await c.round()).requeueAfter).toBe(7 * 60_000);
    clock.advance(7 * 60_000);
    await c.round(); // granted at 12:07
    expect(fake.getObject(Node, { name: 'n1' })?.metadata.annotations?.[A.rebootOk]).toBe('true');
    clock.advance(60_000);
    // Granted at 12:07 with a 10-minute timeout: wake at 12:17.
    expect((await c.round()).requeueAfter).toBe(9 * 60_000 + 1);
  });
});

describe('wiring', () => {
  it('runs under a Manager on the test kit: grants, events on the node, metrics', async () => {
    const fake = new FakeCluster({ kinds: [Node, RebootGroupType, Lease, Event] });
    await addNode(fake, 'n1', { [A.rebootNeeded]: 'true' });
    const manager = Manager.create({
      transport: fake,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
      logLevel: 'silent',
    });
    addCoordinator(manager, { namespace: NS });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      for (
        let i = 0;
        i < 200 && fake.getObject(Node, { name: 'n1' })?.metadata.annotations?.[A.rebootOk] !== 'true';
        i++
      ) {
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(fake.getObject(Node, { name: 'n1' })?.metadata.annotations?.[A.rebootOk]).toBe('true');
      for (
        let i = 0;
        i < 200 && !fake.objects(Event, 'default').some((e) => e.reason === 'RebootGranted');
        i++
      ) {
        await new Promise((r) => setTimeout(r, 10));
      }
      const granted = fake.objects(Event, 'default').find((e) => e.reason === 'RebootGranted');
      expect(granted?.regarding).toMatchObject({ kind: 'Node', name: 'n1' });
      const text = await manager.metrics.registry.metrics();
      expect(text).toMatch(/capstan_coordinator_grants_total\{group="default"\} 1/);
      expect(text).toMatch(/capstan_coordinator_nodes\{group="default",state="(asking|granted)"\} 1/);
    } finally {
      stop.abort();
      await running;
    }
  });

  it('parses the coordinator flags on top of the standard ones', () => {
    const { standard, extra } = parseStandardOptions<CoordinatorFlags>(
      [
        '--leader-elect',
        '--protocol',
        'fluo',
        '--default-max-unavailable',
        '25%',
        '--default-order',
        '3',
        '--default-grant-timeout',
        '10m',
        '--default-before-reboot-annotation',
        'a.example/ok',
        '--default-before-reboot-annotation',
        'b.example/ok',
        '--fleetlock-bind-address',
        ':9090',
      ],
      {
        name: 'capstan-coordinator',
        defaults: { leaderElectionId: 'capstan-coordinator' },
        extend: addCoordinatorFlags,
      },
    );
    expect(standard.leaderElectionId).toBe('capstan-coordinator');
    const options = coordinatorOptionsFromFlags(extra, 'ops');
    expect(options).toMatchObject({
      protocol: 'fluo',
      namespace: 'ops',
      defaultGroup: {
        maxUnavailable: '25%',
        order: 3,
        beforeRebootAnnotations: ['a.example/ok', 'b.example/ok'],
      },
      defaultGrantTimeoutMs: 600_000,
      fleetlock: { bindAddress: ':9090', waitMs: 5000 },
    });
    const numeric = parseStandardOptions<CoordinatorFlags>(['--default-max-unavailable', '2'], {
      name: 'c',
      extend: addCoordinatorFlags,
    });
    expect(coordinatorOptionsFromFlags(numeric.extra, 'ops').defaultGroup?.maxUnavailable).toBe(2);
    for (const bad of [
      ['--protocol', 'kured'],
      ['--default-max-unavailable', '0'],
      ['--default-order', 'x'],
    ]) {
      const parsed = parseStandardOptions<CoordinatorFlags>(bad, { name: 'c', extend: addCoordinatorFlags });
      expect(() => coordinatorOptionsFromFlags(parsed.extra, 'ops')).toThrow();
    }
  });

  it('speaks FLUO keys byte for byte in fluo mode', async () => {
    const clock = new ManualClock(START);
    const fake = cluster(clock);
    await addNode(fake, 'f', { [fluoProtocol.annotations.rebootNeeded]: 'true' });
    const c = new CoordinatorReconciler(
      { namespace: NS, protocol: 'fluo' },
      { client: new Client(fake), clock },
    );
    await c.round();
    const a = fake.getObject(Node, { name: 'f' })?.metadata.annotations ?? {};
    expect(a['flatcar-linux-update.v1.flatcar-linux.net/reboot-ok']).toBe('true');
    expect(a[A.rebootOk]).toBeUndefined();
  });
});

describe('FleetLock client ids', () => {
  it('maps raw machine IDs and Zincati app-specific IDs to a node', () => {
    const machine = '0123456789abcdef0123456789abcdef';
    const id = zincatiId(machine) as string;
    expect(id).toMatch(/^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    expect(id).not.toBe(machine);
    expect(zincatiId('01234567-89AB-CDEF-0123-456789ABCDEF')).toBe(id);
    expect(clientMatchesMachine(machine.toUpperCase(), machine)).toBe(true);
    expect(clientMatchesMachine(id, machine)).toBe(true);
    expect(clientMatchesMachine(`${id.slice(0, 8)}-${id.slice(8)}`, machine)).toBe(true);
    expect(clientMatchesMachine('ffffffffffffffffffffffffffffffff', machine)).toBe(false);
    expect(clientMatchesMachine(id, undefined)).toBe(false);
    expect(zincatiId('not-hex')).toBeUndefined();
  });
});
