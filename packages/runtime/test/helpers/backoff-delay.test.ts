import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, jittered } from '../../src/helpers/index.js';

describe('backoffDelay', () => {
  it('doubles from the first delay up to the cap', () => {
    const curve = { initialMs: 1000, maxMs: 10_000 };
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(n, curve))).toEqual([
      1000, 2000, 4000, 8000, 10_000, 10_000,
    ]);
    expect(backoffDelay(3, { initialMs: 5, maxMs: 1e6, factor: 10 })).toBe(5000);
  });

  it('grows monotonically, never past the cap, and saturates instead of overflowing', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 0, max: 5000 }),
        (initialMs, maxMs, n) => {
          const curve = { initialMs, maxMs };
          const d = backoffDelay(n, curve);
          expect(d).toBeLessThanOrEqual(maxMs);
          expect(Number.isFinite(d)).toBe(true);
          expect(backoffDelay(n + 1, curve)).toBeGreaterThanOrEqual(d);
        },
      ),
    );
  });
});

describe('jittered', () => {
  it('stays within ±spread of the delay, and spans it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (ms, spread, r) => {
          const d = jittered(ms, spread, () => r);
          expect(d).toBeGreaterThanOrEqual(Math.floor(ms * (1 - spread)));
          expect(d).toBeLessThanOrEqual(Math.ceil(ms * (1 + spread)));
        },
      ),
    );
    expect(jittered(1000, 0.25, () => 0)).toBe(750);
    expect(jittered(1000, 0.25, () => 0.5)).toBe(1000);
    expect(jittered(1000, 0.25, () => 0.999_999)).toBe(1250);
  });
});
