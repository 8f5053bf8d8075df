/**
 * Pooling metadata strings is invisible to readers: an object reads the same afterwards, and a
 * frozen one is left alone (string identity itself cannot be seen from JavaScript; the heap row of
 * the bench measures the saving).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/types.js';
import { intern, internCommonStrings } from '../../src/cache/intern.js';

const objectArb = fc.record({
  apiVersion: fc.option(fc.string(), { nil: undefined }),
  kind: fc.option(fc.string(), { nil: undefined }),
  metadata: fc.record(
    {
      name: fc.string(),
      namespace: fc.string(),
      creationTimestamp: fc.string(),
      labels: fc.dictionary(fc.string(), fc.string()),
    },
    { requiredKeys: ['name'] },
  ),
  data: fc.dictionary(fc.string(), fc.string()),
});

describe('internCommonStrings', () => {
  it('leaves every object equal to what it was, fields and key order included', () => {
    fc.assert(
      fc.property(fc.array(objectArb, { maxLength: 20 }), (objects) => {
        for (const o of objects) {
          const before = structuredClone(o);
          expect(internCommonStrings(o as KubeObject)).toBe(o);
          expect(o).toEqual(before);
          expect(Object.keys(o.metadata)).toEqual(Object.keys(before.metadata));
        }
      }),
    );
  });

  it('returns a frozen object untouched, without throwing', () => {
    const o = Object.freeze({ apiVersion: 'v1', metadata: Object.freeze({ name: 'a', namespace: 'n' }) });
    expect(internCommonStrings(o as KubeObject)).toBe(o);
  });

  it('hands back an equal string, also once the pool was cleared for being full', () => {
    for (let i = 0; i < 25_000; i++) expect(intern(`value-${i % 12_000}`)).toBe(`value-${i % 12_000}`);
  });
});
