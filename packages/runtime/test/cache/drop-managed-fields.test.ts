/**
 * The default transform of watched objects: the object without `metadata.managedFields`, every
 * other field as it was and in its order (the copy is built key by key), the input untouched.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/types.js';
import { dropManagedFields } from '../../src/cache/drop-managed-fields.js';

const arbObject = fc
  .record({
    top: fc.dictionary(fc.constantFrom('kind', 'apiVersion', 'spec', 'status', 'data'), fc.jsonValue(), {
      maxKeys: 4,
    }),
    metadata: fc.dictionary(fc.constantFrom('name', 'namespace', 'uid', 'labels'), fc.jsonValue(), {
      maxKeys: 4,
    }),
    managedFields: fc.option(fc.array(fc.jsonValue(), { maxLength: 2 }), { nil: undefined }),
    metadataAt: fc.nat(4),
  })
  .map(({ top, metadata, managedFields, metadataAt }) => {
    const entries = Object.entries(top);
    const meta = managedFields === undefined ? metadata : { ...metadata, managedFields };
    entries.splice(Math.min(metadataAt, entries.length), 0, ['metadata', meta]);
    return Object.fromEntries(entries) as unknown as KubeObject;
  });

describe('dropManagedFields', () => {
  it('drops managedFields and keeps every other field, in order, without touching its input', () => {
    fc.assert(
      fc.property(arbObject, (object) => {
        const before = structuredClone(object);
        const out = dropManagedFields(object);
        const { managedFields: _m, ...metadata } = before.metadata;
        expect(out).toEqual({ ...before, metadata });
        expect(Object.keys(out)).toEqual(Object.keys(before));
        expect(Object.keys(out.metadata)).toEqual(Object.keys(metadata));
        expect(Object.hasOwn(out.metadata, 'managedFields')).toBe(false);
        expect(object).toEqual(before);
        if (before.metadata.managedFields === undefined) expect(out).toBe(object);
      }),
    );
  });
});
