/** Properties of the applied-manifest check that spares a converged stack its re-applies. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holds, MANIFEST_HASH_ANNOTATION, type Manifest, withManifestHash } from '../src/index.js';

const json = fc.jsonValue({ maxDepth: 3 });
const manifest = fc.record({
  apiVersion: fc.constant('v1'),
  kind: fc.constant('ConfigMap'),
  metadata: fc.record({
    name: fc.string({ minLength: 1, maxLength: 8 }),
    labels: fc.dictionary(fc.string(), fc.string()),
  }),
  data: fc.dictionary(fc.string({ maxLength: 4 }), json),
}) as fc.Arbitrary<Manifest>;

describe('holds', () => {
  it('every value holds itself', () => {
    fc.assert(fc.property(json, (v) => holds(v, structuredClone(v))));
  });

  it('extra fields of the live object (defaults, status) do not matter', () => {
    fc.assert(
      fc.property(manifest, json, (m, status) => holds(m, { ...structuredClone(m), status, extra: 1 })),
    );
  });

  it('a changed scalar or a list of another length does not hold', () => {
    expect(holds({ a: { b: 1 } }, { a: { b: 2 } })).toBe(false);
    expect(holds({ a: [1, 2] }, { a: [1, 2, 3] })).toBe(false);
    expect(holds({ a: [{ x: 1 }] }, { a: [{ x: 1, y: 2 }] })).toBe(true);
    expect(holds({ a: {} }, { a: null })).toBe(false);
  });
});

describe('withManifestHash', () => {
  it('is stable, and changes with the manifest', () => {
    fc.assert(
      fc.property(manifest, manifest, (a, b) => {
        const ha = withManifestHash(a).metadata.annotations as Record<string, string>;
        const again = withManifestHash(withManifestHash(a)).metadata.annotations as Record<string, string>;
        expect(again[MANIFEST_HASH_ANNOTATION]).toBe(ha[MANIFEST_HASH_ANNOTATION]);
        const hb = withManifestHash(b).metadata.annotations as Record<string, string>;
        if (JSON.stringify(a) !== JSON.stringify(b))
          expect(hb[MANIFEST_HASH_ANNOTATION]).not.toBe(ha[MANIFEST_HASH_ANNOTATION]);
      }),
    );
  });

  it('a live object that lost a field the new manifest drops is applied again: the hash differs', () => {
    const old = withManifestHash({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { a: '1', b: '2' },
    });
    const next = withManifestHash({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { a: '1' },
    });
    expect(holds(next, old)).toBe(false);
    expect(holds(old, old)).toBe(true);
  });
});
