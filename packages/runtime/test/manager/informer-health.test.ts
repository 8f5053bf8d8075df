/**
 * Informer health beyond the first sync: a synced informer whose watch then keeps failing turns
 * its own `/readyz` check red once it has failed longer than the threshold, and its gauge says
 * for how long; both recover with the watch.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { apiError } from '../../src/api/errors.js';
import { ConfigMap } from '../../src/client/index.js';
import { Manager } from '../../src/manager/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { sample } from './prom-text.js';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

describe('informer health', () => {
  it('fails the informer’s readiness check after the threshold, and recovers', async () => {
    const clock = new ManualClock();
    const fake = new FakeCluster({ clock, kinds: [ConfigMap] });
    const manager = Manager.create({
      transport: fake,
      clock,
      logLevel: 'silent',
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
      informerFailureThresholdMs: 60_000,
    });
    manager
      .controllerBuilder()
      .for(ConfigMap)
      .build(async () => undefined);
    const stop = new AbortController();
    let done = false;
    const running = manager.start(stop.signal).finally(() => {
      done = true;
    });
    stops.push(async () => {
      stop.abort();
      await clock.advanceUntil(() => done, 'the manager stopped', 10, 1_000);
      await running;
    });
    await clock.advanceUntil(() => manager.cache.hasSynced() && manager.listening.probes !== undefined);
    const check = 'informer-configmaps';
    const readyz = async () => {
      const res = await fetch(`http://127.0.0.1:${manager.listening.probes}/readyz/${check}`);
      return { status: res.status, text: await res.text() };
    };
    const failing = async () =>
      sample(
        await (await fetch(`http://127.0.0.1:${manager.listening.metrics}/metrics`)).text(),
        'capstan_informer_watch_failing_seconds',
        { informer: 'configmaps' },
      );
    expect((await readyz()).status).toBe(200);
    expect(await failing()).toBe(0);

    let broken = true;
    fake.addFault((r) =>
      broken && r.verb === 'watch' ? apiError(500, 'InternalError', 'etcd down') : undefined,
    );
    fake.dropWatches(new Error('connection reset'));
    await clock.advanceAsync(30_000);
    expect((await readyz()).status).toBe(200); // failing, but not for long yet
    await clock.advanceAsync(40_000);
    const red = await readyz();
    expect(red.status).toBe(503);
    expect(await failing()).toBeGreaterThan(60);

    broken = false;
    await clock.advanceAsync(35_000); // the next retry (backoff at most 30 s) succeeds
    expect((await readyz()).status).toBe(200);
    expect(await failing()).toBe(0);
  });
});
