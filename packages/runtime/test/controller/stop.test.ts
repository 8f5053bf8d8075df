/**
 * Controller.stop(): a key still queued when the controller stops is never reconciled with a live
 * signal. Either it does not start, or its signal is already aborted.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { InformerCache } from '../../src/cache/index.js';
import { Client } from '../../src/client/index.js';
import { ControllerBuilder } from '../../src/controller/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { WorkQueue } from '../../src/workqueue/index.js';
import { GizmoType } from './gizmo.js';

const namespace = 'stop-test';

describe('Controller.stop', () => {
  it('never hands a queued key to a worker with a live signal once stopped', async () => {
    const clock = new ManualClock();
    const cluster = new FakeCluster({ clock, kinds: [GizmoType] });
    const client = new Client(cluster);
    const cache = new InformerCache(cluster, { clock });
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen: Array<{ name: string; aborted: boolean }> = [];
    const controller = new ControllerBuilder(
      cache,
      { logger: pino({ level: 'silent' }), clock },
      { namespace },
    )
      .for(GizmoType)
      .build(async (request, context) => {
        seen.push({ name: request.name, aborted: context?.signal.aborted ?? false });
        if (request.name === 'first') await blocked;
        return undefined;
      });
    cache.start();
    void controller.start();
    await client.create(GizmoType, { metadata: { name: 'first', namespace }, spec: { size: 1 } });
    await clock.advanceUntil(() => seen.length === 1);
    // The only worker is busy; `second` waits in the queue when the controller stops.
    await client.create(GizmoType, { metadata: { name: 'second', namespace }, spec: { size: 1 } });
    await clock.advanceAsync(10);
    const stopped = controller.stop();
    release();
    await stopped;
    await cache.stop();
    for (const s of seen.filter((x) => x.name === 'second')) expect(s.aborted).toBe(true);
    expect(seen[0]).toEqual({ name: 'first', aborted: false });
  });
});

describe('WorkQueue.get', () => {
  it('rejects with an aborted signal even when a key is queued, and keeps the key', async () => {
    const queue = new WorkQueue<string>({ clock: new ManualClock() });
    queue.add('k');
    const stop = new AbortController();
    stop.abort(new Error('stopping'));
    await expect(queue.get(stop.signal)).rejects.toThrow('stopping');
    expect(await queue.get()).toEqual({ shutdown: false, key: 'k' });
  });
});
