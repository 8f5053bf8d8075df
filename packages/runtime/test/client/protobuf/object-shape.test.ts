import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeObject } from '../../../src/transport/protobuf/object-shape.js';

/** The reference: own enumerable properties defined one by one. */
function reference(keys: string[], values: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [i, key] of keys.entries())
    Object.defineProperty(out, key, {
      value: values[i],
      writable: true,
      enumerable: true,
      configurable: true,
    });
  return out;
}

describe('makeObject', () => {
  it('makes the same object as defining the properties in order, the first time and once compiled', () => {
    const keys = fc.uniqueArray(
      fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', 'constructor', '0', 'a"b')),
      {
        maxLength: 8,
      },
    );
    fc.assert(
      fc.property(keys, fc.array(fc.jsonValue(), { minLength: 8, maxLength: 8 }), (k, v) => {
        const values = v.slice(0, k.length);
        const want = reference(k, values);
        for (let i = 0; i < 3; i++) {
          const got = makeObject(k, values);
          expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
          expect(Object.keys(got)).toEqual(Object.keys(want));
          expect(got).toStrictEqual(want);
        }
      }),
    );
  });
});
