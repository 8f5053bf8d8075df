/** deepFreeze leaves a JSON value equal to what it was, with every object and array in it frozen. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepFreeze, frozenCopy } from '../../src/cache/deep-freeze.js';

function everyObjectFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(everyObjectFrozen);
}

describe('deepFreeze', () => {
  it('freezes every object and array of a JSON value and changes nothing in it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const before = structuredClone(value);
        expect(deepFreeze(value)).toBe(value);
        expect(value).toEqual(before);
        expect(everyObjectFrozen(value)).toBe(true);
      }),
    );
  });

  it('walks into a child that was frozen shallowly', () => {
    const inner = { deep: { n: 1 } };
    Object.freeze(inner);
    const outer = deepFreeze({ inner });
    expect(Object.isFrozen(outer.inner.deep)).toBe(true);
    expect(() => {
      (outer.inner.deep as { n: number }).n = 2;
    }).toThrow(TypeError);
  });
});

describe('frozenCopy', () => {
  it('copies any JSON value, frozen throughout, leaving the original as it was', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const before = JSON.stringify(value);
        const copy = frozenCopy(value);
        expect(copy).toEqual(value);
        expect(JSON.stringify(value)).toBe(before);
        const frozen = (v: unknown): boolean =>
          typeof v !== 'object' || v === null || (Object.isFrozen(v) && Object.values(v).every(frozen));
        expect(frozen(copy)).toBe(true);
        if (typeof value === 'object' && value !== null) expect(Object.isFrozen(value)).toBe(false);
      }),
    );
  });

  it('leaves out metadata.managedFields when asked', () => {
    const object = { metadata: { name: 'a', managedFields: [{ manager: 'm' }] }, data: { k: 'v' } };
    expect(frozenCopy(object, true)).toEqual({ metadata: { name: 'a' }, data: { k: 'v' } });
    expect(object.metadata.managedFields).toHaveLength(1);
  });
});
