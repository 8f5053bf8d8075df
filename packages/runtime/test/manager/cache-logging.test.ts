/**
 * A manager's cache reports reflector failures through the manager's structured logger, never as
 * plain `console.warn` text in the middle of the JSON log stream.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigMap } from '../../src/client/index.js';
import { Manager } from '../../src/manager/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('cache logging', () => {
  it('writes a failed list as one JSON line with the resource and the retry delay', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const clock = new ManualClock();
    const fake = new FakeCluster({ clock, kinds: [ConfigMap] });
    fake.failNext('watch', 503); // the list: the reflector lists through a watch-list stream
    const manager = Manager.create({
      transport: fake,
      clock,
      logger: pino({ level: 'warn' }, sink),
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
    });
    manager.cache.informerFor(ConfigMap);
    manager.cache.start();
    await clock.advanceUntil(() => manager.cache.hasSynced());
    await manager.cache.stop();
    expect(warn).not.toHaveBeenCalled();
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toContainEqual(
      expect.objectContaining({
        msg: 'reflector failed; retrying',
        resource: 'configmaps',
        component: 'cache',
      }),
    );
    const failed = records.find((r) => r.msg === 'reflector failed; retrying');
    expect(typeof failed?.retryInMs).toBe('number');
  });
});
