/**
 * A manager told to stop before its caches synced (the API server unreachable) stops at once: it
 * starts no controller it would then wait for, so the graceful shutdown timeout never runs out.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigMap } from '../../src/client/index.js';
import { Manager } from '../../src/manager/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';

describe('a manager stopped before its caches sync', () => {
  it('stops without waiting for the graceful shutdown timeout', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const clock = new ManualClock();
    const fake = new FakeCluster({ clock, kinds: [ConfigMap] });
    fake.addFault((r) => (r.verb === 'list' ? new Error('connect ECONNREFUSED') : undefined));
    const manager = Manager.create({
      transport: fake,
      clock,
      logger: pino({ level: 'info' }, sink),
      metricsBindAddress: '0',
      healthProbeBindAddress: '0',
    });
    let reconciles = 0;
    manager
      .controllerBuilder()
      .for(ConfigMap)
      .build(async () => {
        reconciles++;
        return undefined;
      });
    const stop = new AbortController();
    let done = false;
    const running = manager.start(stop.signal).finally(() => {
      done = true;
    });
    await clock.advanceAsync(3_000); // a few failed lists
    stop.abort(new Error('received SIGTERM'));
    // Well under the 30 s graceful timeout of virtual time.
    await clock.advanceUntil(() => done, 'the manager stopped', 10, 1_000);
    await running;
    expect(reconciles).toBe(0);
    expect(lines.join('')).not.toContain('graceful shutdown timed out');
  });
});
