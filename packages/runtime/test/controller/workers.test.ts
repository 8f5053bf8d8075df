/**
 * The controller runs at most `maxConcurrentReconciles` reconciles at once, and uses them all when
 * keys are waiting; stopping wakes a dispatcher that waits for a free worker.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { InformerCache } from '../../src/cache/index.js';
import { Client } from '../../src/client/index.js';
import { sleep } from '../../src/clock.js';
import { ControllerBuilder } from '../../src/controller/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { GizmoType } from './gizmo.js';

const namespace = 'workers-test';

describe('controller workers', () => {
  it('keeps exactly maxConcurrentReconciles reconciles in flight while keys wait', async () => {
    const clock = new ManualClock();
    const cluster = new FakeCluster({ clock, kinds: [GizmoType] });
    const cache = new InformerCache(cluster, { clock });
    let inFlight = 0;
    let most = 0;
    const done = new Set<string>();
    const controller = new ControllerBuilder(
      cache,
      { logger: pino({ level: 'silent' }), clock },
      { namespace },
    )
      .for(GizmoType)
      .withOptions({ maxConcurrentReconciles: 3 })
      .build(async (request) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await sleep(clock, 100);
        inFlight--;
        done.add(request.name);
      });
    const client = new Client(cluster);
    for (let i = 0; i < 8; i++)
      await client.create(GizmoType, { metadata: { name: `g${i}`, namespace }, spec: { size: 1 } });
    cache.start();
    const t0 = clock.now();
    const running = controller.start();
    await clock.advanceUntil(() => done.size === 8);
    expect(most).toBe(3);
    // 8 keys, 3 at a time, 100 ms each: three rounds of virtual time, not eight.
    expect(clock.now() - t0).toBeLessThan(800);
    await clock.advanceUntilSettled(controller.stop());
    await running;
    await cache.stop();
  });

  it('runs more than ten reconciles that read their signal at once without a listener warning', async () => {
    const clock = new ManualClock();
    const cluster = new FakeCluster({ clock, kinds: [GizmoType] });
    const cache = new InformerCache(cluster, { clock });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    let most = 0;
    let inFlight = 0;
    const done = new Set<string>();
    const controller = new ControllerBuilder(
      cache,
      { logger: pino({ level: 'silent' }), clock },
      { namespace },
    )
      .for(GizmoType)
      .withOptions({ maxConcurrentReconciles: 16 })
      .build(async (request, context) => {
        inFlight++;
        most = Math.max(most, inFlight);
        expect(context.signal.aborted).toBe(false); // makes the reconcile's signal: a listener
        await sleep(clock, 100);
        inFlight--;
        done.add(request.name);
      });
    const client = new Client(cluster);
    for (let i = 0; i < 16; i++)
      await client.create(GizmoType, { metadata: { name: `g${i}`, namespace }, spec: { size: 1 } });
    cache.start();
    const running = controller.start();
    await clock.advanceUntil(() => done.size === 16);
    await new Promise((r) => setImmediate(r)); // warnings are emitted on the next tick
    process.off('warning', onWarning);
    expect(most).toBe(16);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    await clock.advanceUntilSettled(controller.stop());
    await running;
    await cache.stop();
  });

  it('stops while every worker is busy and the dispatcher waits for one', async () => {
    const clock = new ManualClock();
    const cluster = new FakeCluster({ clock, kinds: [GizmoType] });
    const cache = new InformerCache(cluster, { clock });
    let started = 0;
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const controller = new ControllerBuilder(
      cache,
      { logger: pino({ level: 'silent' }), clock },
      { namespace },
    )
      .for(GizmoType)
      .withOptions({ maxConcurrentReconciles: 1 })
      .build(async () => {
        started++;
        await blocked;
      });
    const client = new Client(cluster);
    for (let i = 0; i < 2; i++)
      await client.create(GizmoType, { metadata: { name: `g${i}`, namespace }, spec: { size: 1 } });
    cache.start();
    const running = controller.start();
    await clock.advanceUntil(() => started === 1);
    const stopping = controller.stop();
    release();
    await stopping;
    await running;
    await cache.stop();
    // The second key was never handed to a worker once the controller stopped.
    expect(started).toBe(1);
  });
});
