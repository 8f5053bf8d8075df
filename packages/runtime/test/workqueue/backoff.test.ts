import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/testing/manual-clock.js';
import {
  ExponentialRateLimiter,
  type GetResult,
  WorkQueue,
  type WorkQueueMetrics,
} from '../../src/workqueue/index.js';

function keyOf(r: GetResult<string>): string {
  if (r.shutdown) throw new Error('unexpected shutdown');
  return r.key;
}

function setup(baseMs = 1000, maxMs = 1_000_000) {
  const clock = new ManualClock(0);
  let retries = 0;
  const metrics: WorkQueueMetrics = {
    onDepth() {},
    onAdd() {},
    onQueueLatency() {},
    onWorkDuration() {},
    onRetry: () => {
      retries++;
    },
  };
  const q = new WorkQueue({ clock, metrics, rateLimiter: new ExponentialRateLimiter(baseMs, maxMs) });
  return { clock, q, retries: () => retries };
}

/** Runs one reconcile of `key` (which must be queued) that fails. */
async function failOnce(q: WorkQueue, key = 'k'): Promise<void> {
  expect(keyOf(await q.get())).toBe(key);
  q.addRateLimited(key, 'reconcile failed');
  q.done(key);
}

describe('WorkQueue: rate-limited retries', () => {
  it('retries after the delay the rate limiter gives, counting failures', async () => {
    const { clock, q, retries } = setup();
    q.add('k');
    await failOnce(q);
    expect(q.numRequeues('k')).toBe(1);
    expect(q.len()).toBe(0);
    clock.advance(999);
    expect(q.len()).toBe(0);
    clock.advance(1);
    await failOnce(q);
    expect(q.numRequeues('k')).toBe(2);
    clock.advance(1999);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
    expect(retries()).toBe(2);
  });

  it('forget resets the failures', async () => {
    const { clock, q } = setup();
    q.add('k');
    await failOnce(q);
    clock.advance(1000);
    expect(keyOf(await q.get())).toBe('k');
    q.forget('k');
    q.done('k');
    expect(q.numRequeues('k')).toBe(0);
    q.add('k');
    await failOnce(q);
    expect(q.explain('k')?.readyAt).toBe(2000);
  });

  it('uses the default controller rate limiter when none is given', async () => {
    const clock = new ManualClock(0);
    const q = new WorkQueue({ clock });
    q.add('k');
    await failOnce(q);
    clock.advance(4);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
  });

  it('ignores addRateLimited after shutdown', () => {
    const { q, retries } = setup();
    q.shutDown();
    q.addRateLimited('k');
    expect(q.numRequeues('k')).toBe(0);
    expect(retries()).toBe(0);
  });

  describe('backoff that events cannot poison (kubernetes#132805)', () => {
    it('an event during backoff runs the key at once, but its failure does not raise the exponent', async () => {
      const { clock, q } = setup();
      q.add('k');
      await failOnce(q); // failure 1: back off until t=1000
      clock.advance(100);
      q.add('k', 'status update event');
      await failOnce(q); // early run: not counted
      expect(q.numRequeues('k')).toBe(1);
      expect(q.explain('k')).toMatchObject({ state: 'waiting', readyAt: 1000, failures: 1 });
      clock.advance(900);
      await failOnce(q); // the backoff's own retry: counted
      expect(q.numRequeues('k')).toBe(2);
      expect(q.explain('k')?.readyAt).toBe(3000);
    });

    it('a storm of events during backoff does not make backoff grow faster than in time', async () => {
      const { clock, q } = setup(1000);
      q.add('k');
      await failOnce(q);
      // Ten events in the first second, each running the key early and failing again. client-go
      // would be at 11 failures, backing off for 1000·2^10 ms; here one failure, deadline unchanged.
      for (let i = 0; i < 10; i++) {
        clock.advance(90);
        q.add('k');
        await failOnce(q);
      }
      expect(q.numRequeues('k')).toBe(1);
      expect(q.explain('k')?.readyAt).toBe(1000);
    });

    it('a run started early that fails after the deadline is not counted; the next run is', async () => {
      const { clock, q } = setup();
      q.add('k');
      await failOnce(q); // deadline 1000
      clock.advance(500);
      q.add('k');
      expect(keyOf(await q.get())).toBe('k'); // started early, at 500
      clock.advance(700); // the deadline passes mid-run; the retry marks the key dirty
      q.addRateLimited('k');
      expect(q.numRequeues('k')).toBe(1);
      q.done('k');
      expect(q.len()).toBe(1);
      await failOnce(q); // started at 1200, after the deadline
      expect(q.numRequeues('k')).toBe(2);
      expect(q.explain('k')?.readyAt).toBe(1200 + 2000);
    });

    it('a second addRateLimited within one backoff is not counted twice', () => {
      const { q } = setup();
      q.addRateLimited('k');
      q.addRateLimited('k');
      expect(q.numRequeues('k')).toBe(1);
      expect(q.explain('k')?.readyAt).toBe(1000);
    });

    it('forget after an early success drops the pending retry', async () => {
      const { clock, q } = setup();
      q.add('k');
      await failOnce(q);
      clock.advance(100);
      q.add('k');
      expect(keyOf(await q.get())).toBe('k');
      q.forget('k'); // the early run succeeded
      q.done('k');
      expect(q.snapshot()).toEqual([]);
      expect(clock.pendingTimers()).toBe(0);
      clock.advance(10_000);
      expect(q.len()).toBe(0);
    });

    it('forget keeps a delay that was asked for with addAfter', async () => {
      const { clock, q } = setup();
      q.add('k');
      expect(keyOf(await q.get())).toBe('k');
      q.addRateLimited('k'); // retry at 1000
      q.addAfter('k', 5000, 'periodic resync'); // merged: the earlier time wins
      q.done('k');
      q.forget('k');
      expect(q.explain('k')).toMatchObject({ state: 'waiting', readyAt: 1000, failures: 0 });
      clock.advance(1000);
      expect(q.len()).toBe(1);
    });

    it('property: with any events, failures never outpace a key left alone to back off', async () => {
      // A key whose every run fails. With no events, failure n+1 happens at base·(2^(n+1) − 1);
      // events may run it early as often as they like, but the count at any time stays at or
      // below that schedule.
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.integer({ min: 1, max: 3000 }), { maxLength: 40 }),
          async (eventGaps) => {
            const base = 100;
            const { clock, q } = setup(base, 1_000_000);
            q.add('k');
            const runQueued = async () => {
              while (q.len() > 0) await failOnce(q);
            };
            await runQueued();
            for (const gap of eventGaps) {
              // Step the clock 1 ms at a time so backoff retries run when they are due.
              for (let i = 0; i < gap; i++) {
                clock.advance(1);
                await runQueued();
              }
              q.add('k', 'event');
              await runQueued();
              const t = clock.now();
              const allowed = Math.floor(Math.log2(t / base + 1)) + 1;
              expect(q.numRequeues('k')).toBeLessThanOrEqual(allowed);
            }
          },
        ),
        { numRuns: 200 },
      );
    });
  });

  it('explains a key in backoff: failures, next run time and reason', async () => {
    const { clock, q } = setup();
    q.add('k', 'create');
    clock.advance(10);
    await failOnce(q);
    expect(q.snapshot()).toEqual([
      {
        key: 'k',
        state: 'waiting',
        rerun: false,
        reason: 'reconcile failed',
        lastAddedAt: 10,
        failures: 1,
        readyAt: 1010,
      },
    ]);
  });
});
