import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonEqual } from '../../src/helpers/index.js';

/** The same JSON value with every object's keys in reverse order. */
function reordered(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reordered);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v)
      .reverse()
      .map(([k, x]) => [k, reordered(x)]),
  );
}

describe('jsonEqual', () => {
  it('ignores key order and keys holding undefined, and nothing else', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1, gone: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: '1' })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: null }, {})).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
  });

  it('is the equality of the serialized values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        expect(jsonEqual(a, reordered(a))).toBe(true);
        const same = JSON.stringify(a) === JSON.stringify(b);
        if (same) expect(jsonEqual(a, b)).toBe(true);
        expect(jsonEqual(a, b)).toBe(jsonEqual(b, a));
      }),
    );
  });
});
