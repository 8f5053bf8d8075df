import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sleep } from '../../src/clock.js';
import { ManualClock } from '../../src/testing/index.js';

describe('ManualClock', () => {
  it('runs every timer once, never early, in (due time, scheduling order)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 100 }), { maxLength: 30 }),
        fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 6 }),
        (delays, steps) => {
          const clock = new ManualClock(0);
          const fired: { i: number; at: number; due: number }[] = [];
          delays.forEach((d, i) => {
            clock.setTimeout(() => fired.push({ i, at: clock.now(), due: d }), d);
          });
          for (const s of steps) clock.advance(s);
          const elapsed = steps.reduce((a, b) => a + b, 0);
          const expected = delays
            .map((d, i) => ({ d, i }))
            .filter((x) => x.d <= elapsed)
            .sort((a, b) => a.d - b.d || a.i - b.i);
          return (
            fired.length === expected.length &&
            fired.every((f, k) => f.i === expected[k]!.i && f.at === f.due) &&
            clock.pendingTimers() === delays.length - expected.length
          );
        },
      ),
    );
  });

  it('runs a timer set for "now" by another timer within the same advance, and cancels', () => {
    const clock = new ManualClock(0);
    const order: string[] = [];
    clock.setTimeout(() => {
      order.push('a');
      clock.setTimeout(() => order.push('b'), 0);
    }, 10);
    clock.clearTimeout(clock.setTimeout(() => order.push('never'), 20));
    clock.advance(10);
    expect(order).toEqual(['a', 'b']);
    expect(clock.runAll()).toBe(0);
  });

  it('fires due timers in order of due time, ties in creation order', () => {
    const clock = new ManualClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b'), 20);
    clock.setTimeout(() => fired.push('a'), 10);
    clock.setTimeout(() => fired.push('c'), 20);
    clock.setTimeout(() => fired.push('late'), 31);
    expect(clock.advance(30)).toBe(3);
    expect(fired).toEqual(['a', 'b', 'c']);
    expect(clock.now()).toBe(30);
    expect(clock.pendingTimers()).toBe(1);
  });

  it('sets now() to each timer due time while firing and fires timers scheduled by timers', () => {
    const clock = new ManualClock(0);
    const seen: number[] = [];
    clock.setTimeout(() => {
      seen.push(clock.now());
      clock.setTimeout(() => seen.push(clock.now()), 5);
    }, 10);
    clock.advance(100);
    expect(seen).toEqual([10, 15]);
  });

  it('clearTimeout cancels', () => {
    const clock = new ManualClock(0);
    let fired = false;
    const h = clock.setTimeout(() => {
      fired = true;
    }, 1);
    clock.clearTimeout(h);
    clock.advance(10);
    expect(fired).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('advanceAsync lets awaiting code reach its next timer', async () => {
    const clock = new ManualClock(0);
    const log: number[] = [];
    const loop = (async () => {
      for (let i = 0; i < 3; i++) {
        await sleep(clock, 100);
        log.push(clock.now());
      }
    })();
    await clock.advanceAsync(300);
    await loop;
    expect(log).toEqual([100, 200, 300]);
  });

  it('runAll fires everything and guards against endless re-arming', () => {
    const clock = new ManualClock(0);
    let n = 0;
    clock.setTimeout(() => n++, 1000);
    clock.setTimeout(() => n++, 5);
    expect(clock.runAll()).toBe(2);
    expect(clock.now()).toBe(1000);
    const rearm = () => clock.setTimeout(rearm, 1);
    rearm();
    expect(() => clock.runAll(50)).toThrow(/more than 50/);
  });

  it('advanceUntilSettled moves time until the work settles, and answers or throws what it did', async () => {
    const clock = new ManualClock(0);
    const work = sleep(clock, 1_000).then(() => clock.now());
    await expect(clock.advanceUntilSettled(work, 100)).resolves.toBe(1_000);
    expect(clock.now()).toBe(1_000);
    const failing = sleep(clock, 250).then(() => {
      throw new Error('late failure');
    });
    await expect(clock.advanceUntilSettled(failing, 100)).rejects.toThrow('late failure');
    expect(clock.now()).toBe(1_300);
  });

  it('advanceUntil moves time until the condition holds, and fails when it never does', async () => {
    const clock = new ManualClock(0);
    let fired = false;
    clock.setTimeout(() => {
      fired = true;
    }, 250);
    await clock.advanceUntil(() => fired, 'the timer', 100);
    expect(clock.now()).toBe(300);
    await expect(clock.advanceUntil(() => false, 'nothing', 100, 1_000)).rejects.toThrow(
      'nothing did not hold within 1000 ms of virtual time',
    );
  });
});
