/**
 * `Controller.connect` queues the sources' events before the workers run; a manager without leader
 * election connects its controllers before its caches list, so the first list's keys are queued as
 * the list arrives, while no reconcile runs before every cache has synced.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { WatchEvent, WatchOptions } from '../../src/api/types.js';
import { InformerCache } from '../../src/cache/index.js';
import { type Controller, ControllerBuilder } from '../../src/controller/index.js';
import { Manager } from '../../src/manager/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import type { ApiTransport, WatchCallbacks } from '../../src/transport/transport.js';
import { type Gizmo, GizmoType } from './gizmo.js';

const silent = pino({ level: 'silent' });
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

const gizmo = (name: string): Gizmo => ({
  apiVersion: `${GizmoType.group}/${GizmoType.version}`,
  kind: GizmoType.kind,
  metadata: { name, namespace: 'default' },
});

/** A cluster whose watch-list streams stop short of the initial-events-end bookmark until `release`. */
function holdingCluster(clock: ManualClock) {
  const cluster = new FakeCluster({ clock, kinds: [GizmoType] });
  const held: Array<() => void> = [];
  const transport = Object.create(cluster) as FakeCluster;
  transport.watch = ((type, options: WatchOptions, callbacks: WatchCallbacks<Gizmo>) =>
    cluster.watch(type, options, {
      ...callbacks,
      onEvent: (event: WatchEvent<Gizmo>) => {
        const end =
          event.type === 'BOOKMARK' && event.object.metadata?.annotations?.['k8s.io/initial-events-end'];
        if (end) held.push(() => callbacks.onEvent(event));
        else callbacks.onEvent(event);
      },
    })) as ApiTransport['watch'];
  const release = () => {
    for (const f of held.splice(0)) f();
  };
  return { cluster, transport, release };
}

describe('Controller.connect', () => {
  it('queues events before start; the workers run only once started', async () => {
    const clock = new ManualClock();
    const cluster = new FakeCluster({ clock, kinds: [GizmoType] });
    cluster.seed(GizmoType, gizmo('a'), gizmo('b'));
    const cache = new InformerCache(cluster, { clock });
    const reconciled: string[] = [];
    const controller = new ControllerBuilder(cache, { logger: silent, clock })
      .for(GizmoType)
      .build(async (request) => {
        reconciled.push(request.name);
        return undefined;
      });
    controller.connect();
    controller.connect(); // idempotent: one registration, each key once
    cache.start();
    cleanup.push(() => cache.stop());
    await clock.advanceAsync(0);
    expect(cache.hasSynced()).toBe(true);
    expect(controller.queue.len()).toBe(2);
    expect(reconciled).toEqual([]);
    expect(() =>
      controller.watch({ informer: cache.informerFor(GizmoType), toRequests: () => [], description: 'x' }),
    ).toThrow(/add sources before start/);
    const run = controller.start();
    await clock.advanceAsync(0);
    expect(reconciled.sort()).toEqual(['a', 'b']);
    await clock.advanceUntilSettled(controller.stop());
    await run;
    // A run that ended disconnected the sources: the next start replays the cache into a fresh queue.
    const again = controller.start();
    await clock.advanceAsync(0);
    expect(reconciled.sort()).toEqual(['a', 'a', 'b', 'b']);
    await clock.advanceUntilSettled(controller.stop());
    await again;
  });
});

describe('a manager without leader election', () => {
  it('queues the first list as it arrives and reconciles once the caches synced', async () => {
    const clock = new ManualClock();
    const { cluster, transport, release } = holdingCluster(clock);
    cluster.seed(GizmoType, gizmo('a'), gizmo('b'));
    const manager = Manager.create({
      transport,
      clock,
      logger: silent,
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
    });
    const reconciled: string[] = [];
    const controller: Controller = manager
      .controllerBuilder()
      .for(GizmoType)
      .build(async (request) => {
        reconciled.push(request.name);
        return undefined;
      });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    cleanup.push(async () => {
      stop.abort();
      await clock.advanceUntilSettled(running);
    });
    await clock.advanceAsync(0);
    // The objects came, the list's end did not: keys queued, nothing reconciled.
    expect(manager.cache.hasSynced()).toBe(false);
    expect(controller.queue.len()).toBe(2);
    expect(reconciled).toEqual([]);
    release();
    await clock.advanceAsync(0);
    expect(reconciled.sort()).toEqual(['a', 'b']);
  });
});
