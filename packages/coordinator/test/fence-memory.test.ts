/**
 * The grant fence remembers its own last write to the Lease once the node write it names was
 * answered (`fence.ts`, the header's step 1): the next round begins without reading the Lease;
 * another coordinator's claim in between, or a write with no answer, makes it read again.
 */
import { capstanProtocol } from '@capstan/reboot-protocol';
import { Client } from '@capstan/runtime';
import { Lease, Node } from '@capstan/runtime/client';
import { FakeCluster, ManualClock } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { CoordinatorReconciler, FENCE_POISON_KEY, GrantFence, RebootGroupType } from '../src/index.js';
import { addAskingNode } from './fake-nodes.js';

const A = capstanProtocol.annotations;
const START = Date.UTC(2025, 0, 6, 12, 0, 0);
const NS = 'capstan-system';

/**
 * Three Ready nodes asking (their asks already stamped), in the default group (one slot): a
 * round's only write is its grant.
 */
async function askingTrio(clock: ManualClock): Promise<FakeCluster> {
  const fake = new FakeCluster({ clock, kinds: [Node, RebootGroupType, Lease] });
  for (const [i, name] of ['a', 'b', 'c'].entries()) await addAskingNode(fake, name, {}, START - 1000 + i);
  return fake;
}

const coordinator = (fake: FakeCluster, clock: ManualClock) =>
  new CoordinatorReconciler(
    { namespace: NS, defaultGrantTimeoutMs: 10 * 60_000 },
    { client: new Client(fake), clock },
  );

/** GETs (of any kind) the fake served since it had served `before`. */
const getsSince = (fake: FakeCluster, before: number): number => fake.requestCount('get') - before;

/** Frees the granted node's slot (as if it rebooted and was released) by dropping its ask. */
async function finishGrant(fake: FakeCluster, node: string): Promise<void> {
  await fake.patch(Node, { name: node }, 'merge', {
    metadata: { annotations: { [A.rebootNeeded]: null, [A.rebootOk]: null } },
  });
}

const granted = (fake: FakeCluster): string[] =>
  fake
    .objects(Node)
    .filter((n) => n.metadata.annotations?.[A.rebootOk] === 'true')
    .map((n) => n.metadata.name ?? '');

describe('the fence remembers its own answered claim', () => {
  it('begins the round after an answered grant without reading the Lease or the node', async () => {
    const clock = new ManualClock(START);
    const fake = await askingTrio(clock);
    const c = coordinator(fake, clock);
    let gets = fake.requestCount('get');
    const first = await c.round();
    expect(first.applied.some((w) => w.consumesBudget)).toBe(true);
    expect(getsSince(fake, gets)).toBe(1); // the first begin reads the Lease (none pending)
    const [node] = granted(fake);
    await finishGrant(fake, node as string);
    gets = fake.requestCount('get');
    const second = await c.round();
    expect(second.applied.some((w) => w.consumesBudget)).toBe(true);
    // Neither the Lease nor the node the Lease names was read: the claim was answered.
    expect(getsSince(fake, gets)).toBe(0);
    expect(granted(fake)).toHaveLength(1);
  });

  it('plans again, reading the Lease, when another coordinator claimed since its last claim', async () => {
    const clock = new ManualClock(START);
    const fake = await askingTrio(clock);
    const c = coordinator(fake, clock);
    await c.round();
    const [first] = granted(fake);
    await finishGrant(fake, first as string);
    // Another coordinator claims a grant and stalls before writing it.
    const other = new GrantFence(new Client(fake), clock, NS);
    const begun = await other.begin();
    if (!begun.ok) throw new Error('fence');
    const stalled = fake.objects(Node).find((n) => n.metadata.name !== first) as Node;
    const claim = await other.claim(
      begun.value,
      stalled.metadata.name ?? '',
      stalled.metadata.resourceVersion ?? '',
    );
    expect(claim.ok).toBe(true);

    // Our remembered Lease is stale now: the claim's CAS fails, and nothing is granted from it.
    const stale = await c.round();
    expect(stale.stopped).toBe('fence-conflict');
    expect(granted(fake)).toEqual([]);
    // The next round reads the Lease, poisons the stalled claim and grants from a settled fence.
    const gets = fake.requestCount('get');
    const next = await c.round();
    expect(next.applied.some((w) => w.consumesBudget)).toBe(true);
    expect(getsSince(fake, gets)).toBeGreaterThanOrEqual(2); // the Lease and the stalled node
    const poisoned = fake.getObject(Node, { name: stalled.metadata.name ?? '' });
    expect(poisoned?.metadata.annotations?.[FENCE_POISON_KEY]).toBe(stalled.metadata.resourceVersion);
    expect(granted(fake)).toHaveLength(1);
  });

  it('reads the Lease again after a grant write that got no answer', async () => {
    const clock = new ManualClock(START);
    const fake = await askingTrio(clock);
    const c = coordinator(fake, clock);
    // The grant's write fails without an answer from the server: it may still land.
    fake.failNext('patch', new Error('socket hang up'));
    await expect(c.round()).rejects.toThrow('socket hang up');
    const gets = fake.requestCount('get');
    const next = await c.round();
    // The Lease is read, and the node it names: the unanswered write is settled before any slot.
    expect(getsSince(fake, gets)).toBe(2);
    expect(next.applied.some((w) => w.consumesBudget)).toBe(true);
    expect(granted(fake)).toHaveLength(1);
  });
});
