/**
 * Priorities in a running controller (on the in-memory cluster and a manual clock): what the informer's initial list
 * brings is queued at low priority, so an object edited during start-up is reconciled first.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { InformerCache } from '../../src/cache/index.js';
import { type Controller, ControllerBuilder } from '../../src/controller/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { Widget, widget } from '../testing/fixtures.js';

const running: Array<{ cache: InformerCache; controller: Controller }> = [];
/** Gates a failed test may leave closed; opened first so that stopping never waits on them. */
const gates: Array<() => void> = [];
afterEach(async () => {
  for (const open of gates.splice(0)) open();
  for (const { cache, controller } of running.splice(0)) {
    await controller.stop();
    await cache.stop();
  }
});

describe('initial list at low priority', () => {
  it('reconciles an object created during start-up before the rest of the initial list', async () => {
    const clock = new ManualClock();
    const cluster = new FakeCluster({ clock, kinds: [Widget] });
    /** Moves virtual time until `done()` holds. */
    const eventually = (done: () => boolean, options: { what: string }) =>
      clock.advanceUntil(done, options.what);
    const initial = Array.from({ length: 50 }, (_, i) => widget(`initial-${String(i).padStart(2, '0')}`));
    cluster.seed(Widget, ...initial);

    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    gates.push(release);
    const order: string[] = [];
    const cache = new InformerCache(cluster, { clock });
    const controller = new ControllerBuilder(cache, { logger: pino({ level: 'silent' }), clock })
      .named('widgets')
      .for(Widget)
      .withOptions({ maxConcurrentReconciles: 1 })
      .build(async (request) => {
        order.push(request.name);
        if (order.length === 1) await gate; // hold the only worker while the list is queued
        return undefined;
      });
    cache.start();
    void controller.start();
    running.push({ cache, controller });

    await eventually(() => order.length === 1 && controller.queue.len() === 49, { what: 'the list queued' });
    expect(controller.queue.explain(`default/${initial[1]?.metadata.name}`)).toMatchObject({
      state: 'queued',
      priority: 'low',
    });
    await cluster.create(Widget, widget('fresh'));
    await eventually(() => controller.queue.explain('default/fresh')?.state === 'queued', {
      what: 'fresh queued',
    });
    expect(controller.queue.explain('default/fresh')).not.toHaveProperty('priority');
    release();

    await eventually(() => order.length === 51, { what: 'every widget reconciled' });
    expect(order[1]).toBe('fresh');
    expect(order.slice(2)).toEqual(initial.map((w) => w.metadata.name).filter((n) => n !== order[0]));
  });
});
