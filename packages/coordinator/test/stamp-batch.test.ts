/**
 * A round writes at most 32 new asks' stamps (`decide/stamp-batch.ts`): the bound's rules as
 * properties, then a fleet asking at once on the fake cluster.
 */
import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import { Client } from '@capstan/runtime';
import { Lease, Node } from '@capstan/runtime/client';
import { FakeCluster, ManualClock } from '@capstan/runtime/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NodeWrite, PlannedAction } from '../src/decide/node-write.js';
import { boundStamps, isStampOnly, STAMPS_PER_ROUND } from '../src/decide/stamp-batch.js';
import { CoordinatorReconciler, type RebootGroup, RebootGroupType } from '../src/index.js';
import { addReadyNode, addTierGroup } from './fake-nodes.js';

const A = capstanProtocol.annotations;
const START = Date.UTC(2025, 0, 6, 12, 0, 0);

const arbitraryWrite = fc.record({
  node: fc.string({ minLength: 1, maxLength: 3 }),
  consumesBudget: fc.boolean(),
  actions: fc.oneof(
    fc.constant<PlannedAction[]>(['Requested']),
    fc.constant<PlannedAction[]>(['Granted']),
    fc.constant<PlannedAction[]>(['Released', 'Completed']),
    fc.constant<PlannedAction[]>(['Requested', 'Normalized']),
  ),
});

const toWrite = (w: { node: string; consumesBudget: boolean; actions: PlannedAction[] }): NodeWrite => ({
  ...w,
  resourceVersion: '1',
  setAnnotations: {},
  removeAnnotations: [],
  setLabels: {},
  removeLabels: [],
});

describe('the stamps a round writes', () => {
  it('keeps every other write, the max lowest-ranked stamps, all in plan order', () => {
    fc.assert(
      fc.property(
        fc.array(arbitraryWrite, { maxLength: 40 }).map((ws) => ws.map(toWrite)),
        fc.integer({ min: 0, max: 10 }),
        fc.func(fc.integer({ min: 0, max: 3 })),
        (writes, max, rankOf) => {
          const rank = (node: string) => rankOf(node);
          const { writes: sent, deferred } = boundStamps(writes, max, rank);
          // A subsequence of the plan's writes, in its order.
          let at = 0;
          for (const w of sent) {
            at = writes.indexOf(w, at);
            expect(at).toBeGreaterThanOrEqual(0);
            at++;
          }
          // 1. Every write that is not only a stamp goes out.
          for (const w of writes) if (!isStampOnly(w)) expect(sent).toContain(w);
          // 2. As many stamps as allowed, the rest counted as deferred.
          const stamps = writes.filter(isStampOnly);
          const sentStamps = sent.filter(isStampOnly);
          expect(sentStamps.length).toBe(Math.min(max, stamps.length));
          expect(deferred).toBe(stamps.length - sentStamps.length);
          // 3. Those of the groups ordered first: no stamp waits while one ranked after it goes.
          const held = stamps.filter((w) => !sent.includes(w));
          for (const h of held)
            for (const s of sentStamps) expect(rank(s.node)).toBeLessThanOrEqual(rank(h.node));
        },
      ),
    );
  });
});

/** A control-plane group (3 nodes, one at a time) before 97 workers; every node asks at once. */
async function fleetAsking(clock: ManualClock): Promise<FakeCluster> {
  const fake = new FakeCluster({ clock, kinds: [Node, RebootGroupType, Lease] });
  addTierGroup(fake, 'w', { order: 1, maxUnavailable: '10%' });
  addTierGroup(fake, 'cp', { order: 0, maxUnavailable: 1 });
  // Workers first by name, so the plan's own order would stamp them before the control plane.
  for (let i = 0; i < 100; i++) {
    const [tier, name] = i < 97 ? ['w', `a-worker-${i}`] : ['cp', `z-cp-${i}`];
    await addReadyNode(fake, name, { tier }, { [A.rebootNeeded]: 'true' });
  }
  return fake;
}

const stamped = (fake: FakeCluster, tier: string) =>
  fake
    .objects(Node)
    .filter((n) => n.metadata.labels?.tier === tier)
    .filter((n) => n.metadata.annotations?.[coordinatorKeys.requestedAt] !== undefined).length;

describe('a fleet that asks at once', () => {
  it('grants in the first round after 32 stamps, the control plane’s first, and stamps the rest at once', async () => {
    const clock = new ManualClock(START);
    const fake = await fleetAsking(clock);
    const c = new CoordinatorReconciler(
      { namespace: 'capstan-system', defaultGrantTimeoutMs: 600_000 },
      { client: new Client(fake), clock },
    );
    const first = await c.round();
    expect(first.stampsDeferred).toBe(100 - STAMPS_PER_ROUND - 1);
    expect(first.applied.filter(isStampOnly)).toHaveLength(STAMPS_PER_ROUND);
    expect(first.applied.filter((w) => w.consumesBudget).map((w) => w.node)).toEqual(['z-cp-97']);
    // The control plane's other two asks were among the stamps written.
    expect(stamped(fake, 'cp')).toBe(2);
    expect(await c.reconcile({ name: 'cluster' })).toEqual({ requeueAfter: 1 });
    for (let round = 0; round < 3; round++) await c.round();
    expect(stamped(fake, 'w')).toBe(97);
    const quiet = await c.round();
    expect(quiet.stampsDeferred).toBe(0);
  });
});
