import { jsonEqual } from '@capstan/runtime';
import { jsonPatch } from '@capstan/runtime/testing';
import { createJsonPatch } from '@capstan/runtime/webhook';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

// Keys with the characters a JSON pointer must escape, and ones that look like array indexes.
const key = fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('a/b', '~', '~1', '0', '-', ''));
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.oneof(fc.boolean(), fc.integer(), fc.string({ maxLength: 5 }), fc.constant(null)),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('createJsonPatch', () => {
  it('turns any JSON value into any other when applied by an independent RFC 6902 implementation', () => {
    fc.assert(
      fc.property(json, json, (from, to) => {
        expect(jsonPatch(from, createJsonPatch(from, to))).toEqual(to);
      }),
    );
  });

  it('is empty exactly when nothing changed', () => {
    fc.assert(
      fc.property(json, json, (from, to) => {
        expect(createJsonPatch(from, to).length === 0).toBe(jsonEqual(from, to));
        expect(createJsonPatch(from, structuredClone(from))).toEqual([]);
      }),
    );
  });

  it('reads both sides as JSON: undefined fields are absent, not set', () => {
    expect(createJsonPatch({ a: 1 }, { a: 1, b: undefined })).toEqual([]);
    expect(createJsonPatch({ spec: {} }, { spec: { size: 3 } })).toEqual([
      { op: 'add', path: '/spec/size', value: 3 },
    ]);
    expect(createJsonPatch({ 'a/b': { '~': 1 } }, { 'a/b': { '~': 2 } })).toEqual([
      { op: 'replace', path: '/a~1b/~0', value: 2 },
    ]);
  });
});
