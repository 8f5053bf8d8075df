/**
 * A scheduled node whose before-reboot annotations never come is sent back to the queue at its
 * group's hook timeout, through the reconciler: the next node is served, and the timeout shows as
 * an event on the node, the group's Degraded condition and a metric. Before `hookTimeout` the
 * node held its slot forever and the others waited `BudgetExhausted`.
 */

import { capstanProtocol } from '@capstan/reboot-protocol';
import { Client, EventRecorder } from '@capstan/runtime';
import { Event, Lease, Node } from '@capstan/runtime/client';
import { MetricsRegistry } from '@capstan/runtime/manager';
import { FakeCluster, ManualClock } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import {
  CoordinatorMetrics,
  CoordinatorReconciler,
  type RebootGroup,
  RebootGroupType,
} from '../src/index.js';
import { addAskingNode as addNode } from './fake-nodes.js';

const L = capstanProtocol.labels;
const START = Date.UTC(2025, 0, 6, 12, 0, 0);

describe('hook timeout through the reconciler', () => {
  it('requeues the stuck node, serves the next, and reports it as event, condition and metric', async () => {
    const clock = new ManualClock(START);
    const fake = new FakeCluster({ clock, kinds: [Node, RebootGroupType, Lease, Event] });
    fake.seed(RebootGroupType, {
      metadata: { name: 'default' },
      spec: { maxUnavailable: 1, beforeRebootAnnotations: ['example.com/ok'], hookTimeout: '5m' },
    } as RebootGroup);
    await addNode(fake, 'stuck', {}, START - 2000);
    await addNode(fake, 'next', {}, START - 1000);
    const registry = new MetricsRegistry();
    const client = new Client(fake);
    const c = new CoordinatorReconciler(
      { namespace: 'capstan-system' },
      {
        client,
        clock,
        metrics: new CoordinatorMetrics(registry.registry),
        events: new EventRecorder(client, { controller: 'test', instance: 't', clock }),
      },
    );
    const label = (name: string) => fake.getObject(Node, { name })?.metadata.labels?.[L.beforeReboot];

    const first = await c.round();
    expect(label('stuck')).toBe('true');
    expect(label('next')).toBeUndefined();
    expect(first.requeueAfter).toBe(30_000); // the horizon is nearer than the 5 min deadline

    clock.advance(5 * 60_000);
    await c.round();
    expect(label('stuck')).toBeUndefined();
    expect(label('next')).toBe('true');
    const event = fake.objects(Event, 'default').find((e) => e.reason === 'BeforeRebootHooksTimedOut');
    expect(event?.regarding).toMatchObject({ kind: 'Node', name: 'stuck' });
    const groupObj = fake.getObject(RebootGroupType, { name: 'default' }) as RebootGroup;
    const degraded = groupObj.status?.conditions?.find((k) => k.type === 'Degraded');
    expect(degraded).toMatchObject({ status: 'True', reason: 'HookTimedOut' });
    expect(groupObj.status?.queue.map((q) => [q.node, q.reason])).toEqual([
      ['next', 'WaitingForBeforeRebootAnnotations'],
      ['stuck', 'BudgetExhausted'],
    ]);
    const text = await registry.registry.metrics();
    expect(text).toContain('capstan_coordinator_hook_timeouts_total{group="default",hooks="before"} 1');
  });
});
