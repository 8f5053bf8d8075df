/**
 * One node whose writes the API server refuses (403 from an admission policy, 422 near the size
 * limit) stays that node's problem: every other node, in its group and others, goes on; the node
 * is backed off and surfaced as an event, on its group's Degraded condition and as a metric.
 */

import { capstanProtocol } from '@capstan/reboot-protocol';
import { ApiError, Client, EventRecorder } from '@capstan/runtime';
import { Event, Lease, Node } from '@capstan/runtime/client';
import { MetricsRegistry } from '@capstan/runtime/manager';
import { FakeCluster, ManualClock } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import {
  CoordinatorMetrics,
  CoordinatorReconciler,
  FENCE_PENDING_KEY,
  type RebootGroup,
  RebootGroupType,
} from '../src/index.js';
import { addAskingNode as addNode } from './fake-nodes.js';

const A = capstanProtocol.annotations;
const START = Date.UTC(2025, 0, 6, 12, 0, 0);
const NS = 'capstan-system';

const okOf = (fake: FakeCluster, name: string) =>
  fake.getObject(Node, { name })?.metadata.annotations?.[A.rebootOk];

describe.each([
  [403, 'Forbidden', 'ValidatingAdmissionPolicy capstan-node-writes denied request'],
  [422, 'Invalid', 'metadata.annotations: Too long: must have at most 262144 bytes'],
])('a node whose writes are refused with %i', (code, reason, message) => {
  it('is backed off and reported while every other node goes on', async () => {
    const clock = new ManualClock(START);
    const fake = new FakeCluster({ clock, kinds: [Node, RebootGroupType, Lease, Event] });
    fake.seed(RebootGroupType, {
      metadata: { name: 'pool' },
      spec: { nodeSelector: { matchLabels: { pool: 'p' } }, maxUnavailable: 1 },
    } as RebootGroup);
    fake.seed(RebootGroupType, {
      metadata: { name: 'other' },
      spec: { nodeSelector: { matchLabels: { pool: 'o' } }, maxUnavailable: 1 },
    } as RebootGroup);
    await addNode(fake, 'bad', { pool: 'p' }, START - 3000); // first in its queue
    await addNode(fake, 'p2', { pool: 'p' }, START - 2000);
    await addNode(fake, 'd1', { pool: 'o' }, START - 1000); // in another group
    fake.addFault((r) =>
      r.key?.name === 'bad' && (r.verb === 'patch' || r.verb === 'update')
        ? new ApiError({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message })
        : undefined,
    );
    const registry = new MetricsRegistry();
    const client = new Client(fake);
    const c = new CoordinatorReconciler(
      { namespace: NS, defaultGrantTimeoutMs: 10 * 60_000 },
      {
        client,
        clock,
        metrics: new CoordinatorMetrics(registry.registry),
        events: new EventRecorder(client, { controller: 'test', instance: 't', clock }),
      },
    );

    const first = await c.round();
    expect(first.refused).toEqual(['bad']);
    expect(okOf(fake, 'd1')).toBe('true'); // the other group went on in the same round
    // The refused grant's fence claim was settled: it can never land.
    const fence = fake.getObject(Lease, { namespace: NS, name: 'capstan-coordinator-fence' });
    expect(fence?.metadata.annotations?.[FENCE_PENDING_KEY]).toBeUndefined();

    const second = await c.round();
    expect(second.refused).toEqual([]); // backed off: not even tried
    expect(okOf(fake, 'p2')).toBe('true'); // its own group passes it over
    const pool = fake.getObject(RebootGroupType, { name: 'pool' }) as RebootGroup;
    const degraded = pool.status?.conditions?.find((k) => k.type === 'Degraded');
    expect(degraded).toMatchObject({ status: 'True', reason: 'WritesRefused' });
    expect(degraded?.message).toContain(`${code} ${reason}`);
    expect(pool.status?.queue).toMatchObject([{ node: 'bad', reason: 'WritesRefused' }]);
    const event = fake.objects(Event, 'default').find((e) => e.reason === 'WritesRefused');
    expect(event?.regarding).toMatchObject({ kind: 'Node', name: 'bad' });
    const text = await registry.registry.metrics();
    expect(text).toContain(`capstan_coordinator_write_refusals_total{group="pool",code="${code}"} 1`);
    // Once its backoff has passed it queues again (behind p2, which holds the slot now), still
    // reported until a write to it lands.
    expect(second.requeueAfter).toBeLessThanOrEqual(5_000);
    clock.advance(5_000);
    await c.round();
    const later = fake.getObject(RebootGroupType, { name: 'pool' }) as RebootGroup;
    expect(later.status?.queue).toMatchObject([{ node: 'bad', reason: 'BudgetExhausted' }]);
    expect(later.status?.conditions?.find((k) => k.type === 'Degraded')?.reason).toBe('WritesRefused');
  });
});
