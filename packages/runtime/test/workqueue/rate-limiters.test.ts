import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/testing/manual-clock.js';
import {
  defaultControllerRateLimiter,
  ExponentialRateLimiter,
  FastSlowRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
  TokenBucketRateLimiter,
} from '../../src/workqueue/index.js';

describe('ExponentialRateLimiter', () => {
  it('doubles from the base delay per failure of a key, independently per key', () => {
    const rl = new ExponentialRateLimiter(5, 1_000_000);
    expect([rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a')]).toEqual([5, 10, 20, 40]);
    expect(rl.when('b')).toBe(5);
    expect(rl.numRequeues('a')).toBe(4);
    expect(rl.numRequeues('b')).toBe(1);
  });

  it('caps at the maximum, even after very many failures', () => {
    const rl = new ExponentialRateLimiter(5, 1_000_000);
    const delays = Array.from({ length: 2000 }, () => rl.when('a'));
    expect(delays[17]).toBe(655_360);
    expect(delays[18]).toBe(1_000_000);
    expect(delays[1999]).toBe(1_000_000);
  });

  it('forget resets the exponent', () => {
    const rl = new ExponentialRateLimiter(5, 1000);
    rl.when('a');
    rl.when('a');
    rl.forget('a');
    expect(rl.numRequeues('a')).toBe(0);
    expect(rl.when('a')).toBe(5);
  });

  it('property: delays equal min(base·2^n, max), are monotone and stay within [base, max]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 1, max: 100 }),
        (base, cap, n) => {
          const max = Math.max(base, cap);
          const rl = new ExponentialRateLimiter(base, max);
          const delays = Array.from({ length: n }, () => rl.when('k'));
          expect(delays).toEqual(delays.map((_, i) => Math.min(base * 2 ** i, max)));
          // Plain checks in the loop: thousands of expect calls per run would dominate the time.
          delays.forEach((d, i) => {
            if (d < base || d > max) throw new Error(`delay ${d} outside [${base}, ${max}]`);
            if (i > 0 && d < (delays[i - 1] as number)) throw new Error(`delay ${d} decreased`);
          });
          expect(rl.numRequeues('k')).toBe(n);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('TokenBucketRateLimiter', () => {
  it('lets a burst through, then spaces retries at 1/qps', () => {
    const clock = new ManualClock(0);
    const rl = new TokenBucketRateLimiter({ qps: 10, burst: 3, clock });
    expect([rl.when('a'), rl.when('b'), rl.when('c')]).toEqual([0, 0, 0]);
    expect(rl.when('d')).toBeCloseTo(100);
    expect(rl.when('e')).toBeCloseTo(200);
    expect(rl.numRequeues('a')).toBe(0);
  });

  it('refills over time, up to the burst', () => {
    const clock = new ManualClock(0);
    const rl = new TokenBucketRateLimiter({ qps: 10, burst: 2, clock });
    rl.when('a');
    rl.when('a');
    clock.advance(100);
    expect(rl.when('a')).toBe(0);
    expect(rl.when('a')).toBeCloseTo(100);
    clock.advance(10_000);
    expect([rl.when('a'), rl.when('a')]).toEqual([0, 0]);
    expect(rl.when('a')).toBeCloseTo(100);
  });

  it('rejects a non-positive rate or an empty bucket', () => {
    expect(() => new TokenBucketRateLimiter({ qps: 0, burst: 1 })).toThrow(RangeError);
    expect(() => new TokenBucketRateLimiter({ qps: 1, burst: 0 })).toThrow(RangeError);
  });

  it('property: over any interval of t seconds at most burst + qps·t retries become due', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 80 }),
        (qps, burst, gaps) => {
          const clock = new ManualClock(0);
          const rl = new TokenBucketRateLimiter({ qps, burst, clock });
          const due: number[] = [];
          for (const gap of gaps) {
            clock.advance(gap);
            const d = rl.when('k');
            expect(d).toBeGreaterThanOrEqual(0);
            due.push(clock.now() + d);
          }
          due.sort((x, y) => x - y);
          for (let i = 0; i < due.length; i++) {
            for (let j = i; j < due.length; j++) {
              const seconds = ((due[j] as number) - (due[i] as number)) / 1000;
              expect(j - i + 1).toBeLessThanOrEqual(burst + qps * seconds + 1e-6);
            }
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('FastSlowRateLimiter', () => {
  it('waits the fast delay for the first attempts, then the slow one', () => {
    const rl = new FastSlowRateLimiter(10, 5000, 3);
    expect([rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a'), rl.when('a')]).toEqual([
      10, 10, 10, 5000, 5000,
    ]);
    expect(rl.numRequeues('a')).toBe(5);
    expect(rl.when('b')).toBe(10);
    rl.forget('a');
    expect(rl.when('a')).toBe(10);
  });
});

describe('MaxOfRateLimiter', () => {
  it('returns the longest delay and consults every limiter', () => {
    const clock = new ManualClock(0);
    const rl = new MaxOfRateLimiter(
      new ExponentialRateLimiter(1, 1000),
      new FastSlowRateLimiter(4, 100, 2),
      new TokenBucketRateLimiter({ qps: 1, burst: 1, clock }),
    );
    expect(rl.when('a')).toBe(4);
    expect(rl.when('a')).toBeCloseTo(1000); // bucket empty: 1 s
    expect(rl.numRequeues('a')).toBe(2);
    rl.forget('a');
    expect(rl.numRequeues('a')).toBe(0);
  });

  it('property: never shorter than any of its limiters would ask', () => {
    const make = (clock: ManualClock): RateLimiter[] => [
      new ExponentialRateLimiter(3, 2000),
      new FastSlowRateLimiter(7, 500, 4),
      new TokenBucketRateLimiter({ qps: 5, burst: 3, clock }),
    ];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 500 }), fc.boolean()), {
          maxLength: 50,
        }),
        (steps) => {
          const clock = new ManualClock(0);
          const combined = new MaxOfRateLimiter(...make(clock));
          const shadows = make(clock); // the same limiters, driven alone
          for (const [key, gap, forget] of steps) {
            clock.advance(gap);
            if (forget) {
              combined.forget(key);
              for (const s of shadows) s.forget(key);
              continue;
            }
            const d = combined.when(key);
            const each = shadows.map((s) => s.when(key));
            for (const e of each) expect(d).toBeGreaterThanOrEqual(e);
            expect(d).toBe(Math.max(...each));
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('defaultControllerRateLimiter', () => {
  it('is exponential per key from 5 ms, with an overall 10 qps bucket of 100', () => {
    const clock = new ManualClock(0);
    const rl = defaultControllerRateLimiter(clock);
    expect([rl.when('a'), rl.when('a'), rl.when('a')]).toEqual([5, 10, 20]);
    for (let i = 0; i < 97; i++) expect(rl.when(`k${i}`)).toBe(5);
    // 100 tokens spent at t=0: the next retry of a fresh key waits for the bucket, not its 5 ms.
    expect(rl.when('fresh')).toBeCloseTo(100);
  });

  it('caps a key at 1000 s', () => {
    const rl = defaultControllerRateLimiter(new ManualClock(0));
    let d = 0;
    for (let i = 0; i < 40; i++) d = rl.when('a');
    expect(d).toBe(1_000_000);
  });
});
