import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/testing/manual-clock.js';
import { type GetResult, WorkQueue } from '../../src/workqueue/index.js';

function keyOf(r: GetResult<string>): string {
  if (r.shutdown) throw new Error('unexpected shutdown');
  return r.key;
}

describe('WorkQueue: delayed adds', () => {
  it('adds a key once its delay has passed, not before', () => {
    const clock = new ManualClock();
    const q = new WorkQueue({ clock });
    q.addAfter('a', 100);
    expect(q.len()).toBe(0);
    clock.advance(99);
    expect(q.len()).toBe(0);
    clock.advance(1);
    expect(q.len()).toBe(1);
  });

  it('adds at once when the delay is zero or negative', () => {
    const q = new WorkQueue({ clock: new ManualClock() });
    q.addAfter('a', 0);
    q.addAfter('b', -5);
    expect(q.len()).toBe(2);
  });

  it('keeps the earliest time when a waiting key is delayed again', () => {
    const clock = new ManualClock();
    const q = new WorkQueue({ clock });
    q.addAfter('a', 100);
    q.addAfter('a', 500); // later: ignored
    clock.advance(100);
    expect(q.len()).toBe(1);
    q.addAfter('b', 500);
    q.addAfter('b', 50); // earlier: pulls the entry forward
    clock.advance(50);
    expect(q.len()).toBe(2);
    clock.advance(1000);
    expect(q.len()).toBe(2); // nothing left to fire twice
    expect(clock.pendingTimers()).toBe(0);
  });

  it('fires keys in order of their ready times', async () => {
    const clock = new ManualClock();
    const q = new WorkQueue({ clock });
    q.addAfter('c', 30);
    q.addAfter('a', 10);
    q.addAfter('b', 20);
    clock.advance(30);
    expect([keyOf(await q.get()), keyOf(await q.get()), keyOf(await q.get())]).toEqual(['a', 'b', 'c']);
  });

  it('wakes a waiting worker when a delayed key becomes ready', async () => {
    const clock = new ManualClock();
    const q = new WorkQueue({ clock });
    const got = q.get();
    q.addAfter('a', 1000);
    clock.advance(1000);
    expect(keyOf(await got)).toBe('a');
  });

  it('a plain add of a waiting key runs it now; the delayed add still fires later', async () => {
    const clock = new ManualClock();
    const q = new WorkQueue({ clock });
    q.addAfter('a', 1000);
    q.add('a');
    expect(keyOf(await q.get())).toBe('a');
    q.done('a');
    clock.advance(1000);
    expect(q.len()).toBe(1);
  });

  it('drops pending delayed adds and their timer on shutdown', () => {
    const clock = new ManualClock();
    const q = new WorkQueue({ clock });
    q.addAfter('a', 100);
    q.shutDown();
    expect(clock.pendingTimers()).toBe(0);
    q.addAfter('b', 100);
    clock.advance(1000);
    expect(q.len()).toBe(0);
    expect(q.snapshot()).toEqual([]);
  });

  it('explains waiting keys with their ready time and reason', () => {
    const clock = new ManualClock(0);
    const q = new WorkQueue({ clock });
    q.addAfter('a', 250, 'requeueAfter');
    expect(q.snapshot()).toEqual([
      {
        key: 'a',
        state: 'waiting',
        rerun: false,
        reason: 'requeueAfter',
        lastAddedAt: 0,
        failures: 0,
        readyAt: 250,
      },
    ]);
    clock.advance(250);
    expect(q.explain('a')).toMatchObject({ state: 'queued', reason: 'requeueAfter' });
    expect(q.explain('a')?.readyAt).toBeUndefined();
  });

  it('property: each key enters the queue exactly at its earliest requested time', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), fc.integer({ min: -10, max: 200 })),
          {
            maxLength: 30,
          },
        ),
        async (requests) => {
          const clock = new ManualClock(0);
          const q = new WorkQueue({ clock });
          const earliest = new Map<string, number>();
          for (const [key, delay] of requests) {
            q.addAfter(key, delay);
            earliest.set(key, Math.min(earliest.get(key) ?? Number.POSITIVE_INFINITY, Math.max(0, delay)));
          }
          const arrivals = new Map<string, number>();
          for (let t = 0; t <= 200; t++) {
            if (t > 0) clock.advance(1);
            while (q.len() > 0) {
              const key = keyOf(await q.get());
              expect(arrivals.has(key)).toBe(false);
              arrivals.set(key, t);
            }
          }
          expect(arrivals).toEqual(earliest);
          expect(clock.pendingTimers()).toBe(0);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
