/**
 * A decoder asked to omit managed fields drops exactly `object.metadata.managedFields`: each event
 * equals the parsed line without that one field, wherever it sits among the other members,
 * whatever the strings around it hold, and a lookalike anywhere else is left alone.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseWatchLine, WatchDecoder } from '../../src/transport/watch-decoder.js';

// Strings that trip naive scanners: quotes, backslashes, braces, the field's own name.
const tricky = fc.oneof(
  fc.string(),
  fc.constantFrom('"managedFields":[', '\\', '\\"', '{"a":[1]}', ']}', 'managedFields', '"'),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(tricky, tie('value'), { maxKeys: 3 }),
  ),
})).value;
const managedFields = fc.array(
  fc.record({ manager: tricky, operation: fc.constantFrom('Update', 'Apply'), fieldsV1: json }),
  { maxLength: 3 },
);
/** Members in any order: [key, value] pairs, keys unique. */
const members = (extra: fc.Arbitrary<[string, unknown][]>) =>
  fc
    .tuple(
      fc.dictionary(
        tricky.filter((k) => k !== 'managedFields'),
        json,
        { maxKeys: 4 },
      ),
      extra,
    )
    .chain(([rest, more]) =>
      fc.shuffledSubarray([...Object.entries(rest), ...more], {
        minLength: Object.keys(rest).length + more.length,
      }),
    );
const event = fc
  .record({
    metadata: members(
      fc
        .option(managedFields, { nil: undefined })
        .map((m) => (m === undefined ? [] : [['managedFields', m] as [string, unknown]])),
    ),
    // A decoy deeper down: a template's metadata with managedFields stays.
    spec: fc.option(fc.record({ template: fc.record({ metadata: fc.record({ managedFields }) }) }), {
      nil: undefined,
    }),
    type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED'),
    objectFirst: fc.boolean(),
  })
  .map(({ metadata, spec, type, objectFirst }) => {
    const object: Record<string, unknown> = { kind: 'Thing', apiVersion: 'v1' };
    if (spec) object.spec = spec;
    object.metadata = Object.fromEntries(metadata);
    return objectFirst ? { object, type } : { type, object };
  });

function expected(e: { object: Record<string, unknown> }) {
  const copy = structuredClone(e);
  delete (copy.object.metadata as Record<string, unknown>).managedFields;
  return copy;
}

describe('a watch decoder that omits managed fields', () => {
  it('removes exactly object.metadata.managedFields, compact or spaced', () => {
    fc.assert(
      fc.property(event, fc.boolean(), (e, spaced) => {
        const line = spaced ? JSON.stringify(e, null, 1) : JSON.stringify(e);
        expect(parseWatchLine(line, true)).toEqual(expected(e));
        expect(parseWatchLine(line, true)).toStrictEqual(expected(e));
      }),
      { numRuns: 300 },
    );
  });

  it('takes objects without metadata, or with metadata that is not an object, as they are', () => {
    for (const object of [{}, { metadata: null }, { metadata: [] }, { metadata: 'x' }, { metadata: {} }]) {
      const line = JSON.stringify({ type: 'ADDED', object });
      expect(parseWatchLine(line, true)).toStrictEqual({ type: 'ADDED', object });
    }
  });

  it('is what the decoder does when asked, and only then', () => {
    const line = JSON.stringify({
      type: 'ADDED',
      object: { metadata: { name: 'a', managedFields: [{ manager: 'm' }], labels: { x: 'y' } } },
    });
    const decoded = new WatchDecoder({ omitManagedFields: true }).push(`${line}\n`);
    expect(decoded).toStrictEqual([
      { type: 'ADDED', object: { metadata: { name: 'a', labels: { x: 'y' } } } },
    ]);
    expect(parseWatchLine(line)).toEqual(JSON.parse(line));
    expect(new WatchDecoder().push(`${line}\n`)).toEqual([JSON.parse(line)]);
  });
});
