/**
 * When the manager starts its runnables, on the in-memory cluster and a manual clock: servers
 * before the caches sync (something may wait on them), everything else after.
 */
import { describe, expect, it } from 'vitest';
import { ConfigMap } from '../../src/client/builtin.js';
import { Manager } from '../../src/manager/manager.js';
import type { Runnable } from '../../src/manager/runnable.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';

/** A runnable that records when it started and stops when told to. */
function recording(name: string, started: string[]): Runnable {
  return {
    name,
    start: (signal) => {
      started.push(name);
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    },
  };
}

describe('Manager runnables', () => {
  it('starts servers before the caches sync, and the others only once they have', async () => {
    const clock = new ManualClock();
    const cluster = new FakeCluster({ clock, kinds: [ConfigMap] });
    // The cache cannot list (paginated or as a watch-list stream) until the fault goes: it stays
    // unsynced meanwhile.
    const removeFault = cluster.addFault((r) =>
      r.verb === 'list' || r.verb === 'watch' ? new Error('apiserver not ready') : undefined,
    );
    const manager = Manager.create({
      transport: cluster,
      clock,
      logLevel: 'silent',
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
    });
    const started: string[] = [];
    manager.add(recording('webhook-server', started), 'server');
    manager.add(recording('reporter', started), 'always');
    manager
      .controllerBuilder()
      .named('configmaps')
      .for(ConfigMap)
      .build(async () => undefined);
    manager.add(recording('leader-job', started));
    const stop = new AbortController();
    const done = manager.start(stop.signal);

    await clock.advanceAsync(5_000);
    expect(manager.cache.hasSynced()).toBe(false);
    expect(started).toEqual(['webhook-server']);

    removeFault();
    await clock.advanceAsync(60_000); // past the reflector's backoff
    expect(manager.cache.hasSynced()).toBe(true);
    expect(started).toEqual(['webhook-server', 'reporter', 'leader-job']);

    stop.abort();
    let stopped = false;
    void done.then(() => {
      stopped = true;
    });
    for (let i = 0; i < 100 && !stopped; i++) await clock.advanceAsync(1_000);
    await expect(done).resolves.toBeUndefined();
  });
});
