/**
 * The grant fence reads fresh only the groups where a round takes a slot and those ordered before
 * them, each by its selector (`decide/fresh-groups.ts`): the rules as properties and cases, then
 * rounds on the fake cluster.
 */
import { capstanProtocol } from '@capstan/reboot-protocol';
import { Client } from '@capstan/runtime';
import { Lease, Node } from '@capstan/runtime/client';
import { FakeCluster, ManualClock } from '@capstan/runtime/testing';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { freshRead, writesAfterFreshRead } from '../src/decide/fresh-groups.js';
import type { NodeWrite } from '../src/decide/node-write.js';
import {
  CoordinatorReconciler,
  groupsOfRound,
  type RebootGroup,
  RebootGroupType,
  type World,
} from '../src/index.js';
import { addReadyNode, addTierGroup } from './fake-nodes.js';

const A = capstanProtocol.annotations;
const START = Date.UTC(2025, 0, 6, 12, 0, 0);

const write = (node: string, consumesBudget: boolean): NodeWrite => ({
  node,
  resourceVersion: '1',
  setAnnotations: {},
  removeAnnotations: [],
  setLabels: {},
  removeLabels: [],
  consumesBudget,
  actions: [],
});

describe('the fresh read and the slots it allows', () => {
  it('keeps every write that takes no slot, and a slot only in a group read fresh', () => {
    const groups = ['g0', 'g1', 'g2', 'g3'];
    const arbitraryWrite = fc.record({
      node: fc.integer({ min: 0, max: 30 }).map((i) => `n${i}`),
      slot: fc.boolean(),
      group: fc.constantFrom(...groups),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(arbitraryWrite, { selector: (w) => w.node, maxLength: 20 }),
        fc.subarray(groups),
        fc.boolean(),
        (planned, freshGroups, all) => {
          const plan = {
            writes: planned.map((w) => write(w.node, w.slot)),
            membership: Object.fromEntries(planned.map((w) => [w.node, w.group])),
          };
          const read = all
            ? ({ all: true } as const)
            : ({ all: false, groups: freshGroups, selectors: [], earlierSelectors: [] } as const);
          const { writes, deferred } = writesAfterFreshRead(plan, read);
          const kept = new Set(writes.map((w) => w.node));
          for (const w of planned) {
            const allowed = all || !w.slot || freshGroups.includes(w.group);
            expect(kept.has(w.node)).toBe(allowed);
          }
          expect(deferred).toBe(planned.length - writes.length);
          // In the plan's order.
          expect(writes).toEqual(plan.writes.filter((w) => kept.has(w.node)));
        },
      ),
    );
  });
});

describe('the lists of a fresh read', () => {
  it('lists groups by their selectors and the coordinator’s, and every node for the default group', () => {
    const round = groupsOfRound(
      {
        groups: [
          { name: 'a', spec: { nodeSelector: { matchLabels: { tier: 'a' } } } },
          {
            name: 'b',
            spec: {
              nodeSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'c'] }] },
            },
          },
          { name: 'z', spec: { nodeSelector: { matchLabels: { zone: 'z1', tier: 'z' } } } },
          { name: 'everything', spec: { nodeSelector: {} } },
        ],
      },
      [],
    );
    // a and b each select values of one key: one list. z selects on two keys: its own list.
    expect(freshRead(new Set(['a', 'b', 'z']), round, 'fleet=x')).toEqual({
      all: false,
      groups: ['a', 'b', 'z'],
      selectors: ['fleet=x,tier in (a,b,c)', 'fleet=x,zone=z1,tier=z'],
      earlierSelectors: [],
    });
    expect(freshRead(new Set(['a']), round, undefined)).toEqual({
      all: false,
      groups: ['a'],
      selectors: ['tier=a'],
      earlierSelectors: [],
    });
    expect(freshRead(new Set(['a', round.defaultGroup.name]), round, undefined)).toEqual({ all: true });
    expect(freshRead(new Set(['everything']), round, undefined)).toEqual({ all: true });
    expect(freshRead(new Set(['unknown']), round, undefined)).toEqual({ all: true });
    expect(freshRead(new Set(), round, undefined)).toEqual({ all: true });
  });
});

describe('lists merged by label key', () => {
  it('lists exactly the nodes its groups select, lists merged or not', async () => {
    const keys = ['tier', 'zone'];
    const value = fc.constantFrom('a', 'b', 'c');
    const requirement = fc.oneof(
      fc.record({
        key: fc.constantFrom(...keys),
        operator: fc.constantFrom('In', 'NotIn'),
        values: fc.uniqueArray(value, { minLength: 1 }),
      }),
      fc.record({ key: fc.constantFrom(...keys), operator: fc.constantFrom('Exists', 'DoesNotExist') }),
    );
    // A group with no requirement is read as every node (a case of its own, above).
    const group = fc
      .record({
        matchLabels: fc.dictionary(fc.constantFrom(...keys), value, { maxKeys: 2 }),
        matchExpressions: fc.array(requirement, { maxLength: 2 }),
      })
      .filter((g) => Object.keys(g.matchLabels).length + g.matchExpressions.length > 0);
    const labels = fc.dictionary(fc.constantFrom(...keys), value);
    await fc.assert(
      fc.asyncProperty(
        fc.array(group, { minLength: 1, maxLength: 4 }),
        fc.array(labels, { maxLength: 8 }),
        async (specs, nodes) => {
          const round = groupsOfRound(
            { groups: specs.map((nodeSelector, i) => ({ name: `g${i}`, spec: { nodeSelector } })) },
            [],
          );
          const names = specs.map((_, i) => `g${i}`);
          const read = freshRead(new Set(names), round, undefined);
          expect(read.all).toBe(false);
          if (read.all) return;
          const fake = new FakeCluster({ kinds: [Node] });
          for (const [i, l] of nodes.entries()) fake.seed(Node, { metadata: { name: `n${i}`, labels: l } });
          const listed = new Set<string>();
          for (const labelSelector of [...read.selectors, ...read.earlierSelectors])
            for (const n of (await fake.list(Node, { labelSelector })).items)
              listed.add(n.metadata.name ?? '');
          // Not the default group's: it holds what no selector matches, and is not read here.
          const ours = round.groups.filter((g) => names.includes(g.name));
          const selected = nodes.flatMap((l, i) =>
            ours.some((g) => g.selector?.matches(l)) ? [`n${i}`] : [],
          );
          expect([...listed].sort()).toEqual(selected.sort());
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('the groups read fresh', () => {
  it('holds every granting group and every group ordered before one, or reads every node', () => {
    const arbitraryGroups = fc.uniqueArray(
      fc.record({
        name: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
        order: fc.integer({ min: 0, max: 3 }),
      }),
      { selector: (g) => g.name, minLength: 1 },
    );
    fc.assert(
      fc.property(arbitraryGroups, fc.integer({ min: 1, max: 63 }), (specs, mask) => {
        const round = groupsOfRound(
          {
            groups: specs.map((g) => ({
              name: g.name,
              spec: { order: g.order, nodeSelector: { matchLabels: { group: g.name } } },
            })),
          },
          [],
        );
        const granting = new Set(specs.filter((_, i) => mask & (1 << i)).map((g) => g.name));
        const read = freshRead(granting, round, undefined);
        expect(read.all).toBe(granting.size === 0);
        if (read.all) return;
        const highest = Math.max(...specs.filter((g) => granting.has(g.name)).map((g) => g.order));
        const expected = specs.filter((g) => granting.has(g.name) || g.order < highest).map((g) => g.name);
        expect([...read.groups].sort()).toEqual(expected.sort());
        // Each group selects one value of one key: one list for the granting groups in full, one
        // for the groups before them (as metadata first).
        const selector = (names: string[]) => {
          const values = [...names].sort();
          return values.length === 1 ? `group=${values[0]}` : `group in (${values.join(',')})`;
        };
        expect(read.selectors).toEqual([selector([...granting])]);
        const earlier = expected.filter((g) => !granting.has(g));
        expect(read.earlierSelectors).toEqual(earlier.length > 0 ? [selector(earlier)] : []);
      }),
    );
  });

  it('reads every group ordered before a granting one, and none after it', () => {
    const group = (name: string, order: number) => ({
      name,
      spec: { order, nodeSelector: { matchLabels: { tier: name } } },
    });
    const round = groupsOfRound(
      { groups: [group('cp', 0), group('etcd', 0), group('w1', 1), group('w2', 1), group('w3', 2)] },
      [],
    );
    const names = (granting: string[]) => {
      const read = freshRead(new Set(granting), round, undefined);
      return read.all ? 'all' : [...read.groups].sort();
    };
    expect(names(['cp'])).toEqual(['cp']);
    expect(names(['w1'])).toEqual(['cp', 'etcd', 'w1']);
    expect(names(['w1', 'w2'])).toEqual(['cp', 'etcd', 'w1', 'w2']);
    expect(names(['w3'])).toEqual(['cp', 'etcd', 'w1', 'w2', 'w3']);
    // The default group (order 1000 unless set) is read as every node, and so is what follows it.
    expect(names([round.defaultGroup.name])).toBe('all');
    const late = groupsOfRound({ groups: [group('late', 2000)] }, []);
    expect(freshRead(new Set(['late']), late, undefined)).toEqual({ all: true });
  });
});

/** Two groups of two nodes, one slot each; a1 and b1 ask to reboot. */
async function twoGroups() {
  const clock = new ManualClock(START);
  const fake = new FakeCluster({ clock, kinds: [Node, RebootGroupType, Lease] });
  for (const tier of ['a', 'b']) addTierGroup(fake, tier, { maxUnavailable: 1 });
  await addReadyNode(fake, 'a1', { tier: 'a' }, { [A.rebootNeeded]: 'true' });
  await addReadyNode(fake, 'a2', { tier: 'a' });
  await addReadyNode(fake, 'b1', { tier: 'b' }, { [A.rebootNeeded]: 'true' });
  await addReadyNode(fake, 'b2', { tier: 'b' });
  const nodeLists: Array<string | undefined> = [];
  const list = fake.list.bind(fake);
  vi.spyOn(fake, 'list').mockImplementation((type, options) => {
    if (type === Node) nodeLists.push((options as { labelSelector?: string } | undefined)?.labelSelector);
    return list(type, options);
  });
  return { clock, fake, nodeLists };
}

/** A coordinator on `fake` whose cache holds `world`. */
const coordinatorOn = (fake: FakeCluster, clock: ManualClock, world: World) =>
  new CoordinatorReconciler(
    { namespace: 'capstan-system', defaultGrantTimeoutMs: 600_000 },
    { client: new Client(fake), clock, read: () => world },
  );

const granted = (fake: FakeCluster, name: string) =>
  fake.getObject(Node, { name })?.metadata.annotations?.[A.rebootOk] === 'true';

describe('rounds that take slots', () => {
  it('read the granting groups fresh by their selectors, in one list, never the whole fleet', async () => {
    const { clock, fake, nodeLists } = await twoGroups();
    const world: World = { nodes: fake.objects(Node), groups: fake.objects(RebootGroupType) };
    const c = coordinatorOn(fake, clock, world);
    const outcome = await c.round();
    expect(outcome.stopped).toBeUndefined();
    expect(granted(fake, 'a1') && granted(fake, 'b1')).toBe(true);
    expect(nodeLists).toEqual(['tier in (a,b)']);
  });

  it('take no slot that the granting group’s fresh nodes have taken since the cache', async () => {
    const { clock, fake } = await twoGroups();
    const stale: World = { nodes: fake.objects(Node), groups: fake.objects(RebootGroupType) };
    // After the snapshot a2 goes NotReady: group a's one slot is gone; b's is not.
    await fake.patch(
      Node,
      { name: 'a2' },
      'merge',
      { status: { conditions: [{ type: 'Ready', status: 'False' }] } },
      { subresource: 'status' },
    );
    const c = coordinatorOn(fake, clock, stale);
    await c.round();
    expect(granted(fake, 'a1')).toBe(false);
    expect(granted(fake, 'b1')).toBe(true);
  });

  it('take no slot in a group while a group ordered before it asks, cached or not', async () => {
    const { clock, fake, lists } = await cpThenWorkers();
    // The cache: cp1 idle. The server: cp1 has asked since (what CI's demo saw).
    const stale: World = { nodes: fake.objects(Node), groups: fake.objects(RebootGroupType) };
    await fake.patch(Node, { name: 'cp1' }, 'merge', {
      metadata: { annotations: { [A.rebootNeeded]: 'true' } },
    });
    const c = coordinatorOn(fake, clock, stale);
    await c.round();
    // cp was read fresh (ordered before w): its ask is served, and w waits for it.
    expect(granted(fake, 'cp1')).toBe(true);
    expect(granted(fake, 'w1')).toBe(false);
    // cp1's metadata differed from its cached copy: cp was listed in full after it.
    expect(lists).toEqual(['full tier=w', 'metadata tier=cp', 'full tier=cp']);
  });

  it('take the cached copies of groups before them when their metadata matches, not their full list', async () => {
    const { clock, fake, lists } = await cpThenWorkers();
    const world: World = { nodes: fake.objects(Node), groups: fake.objects(RebootGroupType) };
    await coordinatorOn(fake, clock, world).round();
    expect(granted(fake, 'w1')).toBe(true);
    expect(lists).toEqual(['full tier=w', 'metadata tier=cp']);
  });

  it('list the groups before them in full when the cache lacks one of their nodes', async () => {
    const { clock, fake, lists } = await cpThenWorkers();
    await addReadyNode(fake, 'cp2', { tier: 'cp' }, { [A.rebootNeeded]: 'true' });
    const world: World = {
      nodes: fake.objects(Node).filter((n) => n.metadata.name !== 'cp2'),
      groups: fake.objects(RebootGroupType),
    };
    await coordinatorOn(fake, clock, world).round();
    // cp2, new to the cache, asks: cp is busy, so w takes no slot.
    expect(granted(fake, 'w1')).toBe(false);
    expect(lists).toEqual(['full tier=w', 'metadata tier=cp', 'full tier=cp']);
  });
});

/** A control-plane group (cp1, idle) ordered before a worker group (w1 asking); node lists recorded. */
async function cpThenWorkers() {
  const clock = new ManualClock(START);
  const fake = new FakeCluster({ clock, kinds: [Node, RebootGroupType, Lease] });
  addTierGroup(fake, 'cp', { order: 0, maxUnavailable: 1 });
  addTierGroup(fake, 'w', { order: 1, maxUnavailable: 1 });
  await addReadyNode(fake, 'cp1', { tier: 'cp' });
  await addReadyNode(fake, 'w1', { tier: 'w' }, { [A.rebootNeeded]: 'true' });
  const lists: string[] = [];
  const list = fake.list.bind(fake);
  vi.spyOn(fake, 'list').mockImplementation((type, options) => {
    const selector = (options as { labelSelector?: string } | undefined)?.labelSelector;
    if (type.plural === 'nodes') lists.push(`${type.metadataOnly ? 'metadata' : 'full'} ${selector}`);
    return list(type, options);
  });
  return { clock, fake, lists };
}
