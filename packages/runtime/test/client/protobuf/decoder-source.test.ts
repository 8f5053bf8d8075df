/**
 * The object makers of the generated decoders: a maker compiled for a mask of shown fields, and the
 * fallback once the shape budget is spent, make the same object (keys in the same order). PodSpec
 * has 42 fields, so its masks span both 30-bit words.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byKeys, type Make } from '../../../src/transport/protobuf/decode.js';
import { makerSource, shownFields, usesMask } from '../../../src/transport/protobuf/decoder-source.js';
import { type Message, messageOf } from '../../../src/transport/protobuf/schema.js';

const pod = messageOf('v1', 'Pod')!;
const podSpec = pod.fields.find((f) => f.name === 'spec')!.message!;

/** A mask of the fields at `positions`, as the decoders write it: two words of 30 bits. */
function maskOf(positions: number[]): number {
  let low = 0;
  let high = 0;
  for (const i of positions) {
    if (i < 30) low |= 2 ** i;
    else high |= 2 ** (i - 30);
  }
  return high * 2 ** 30 + low;
}

function compiled(message: Message, mask: number, typed: boolean): Make {
  return new Function(makerSource(message, mask, typed))() as Make;
}

describe('decoder makers', () => {
  it('PodSpec is made from masks (more than 30 fields, none inline)', () => {
    expect(podSpec.fields.length).toBeGreaterThan(30);
    expect(usesMask(podSpec)).toBe(true);
  });

  it('shownFields gives back the positions a mask was made of (a property)', () => {
    const positions = fc.uniqueArray(fc.integer({ min: 0, max: podSpec.fields.length - 1 }));
    fc.assert(
      fc.property(positions, (chosen) => {
        expect(shownFields(podSpec, maskOf(chosen))).toEqual([...chosen].sort((a, b) => a - b));
      }),
    );
  });

  it('a compiled maker and the fallback make the same object, with or without kind and apiVersion (a property)', () => {
    const n = podSpec.fields.length;
    const input = fc.record({
      chosen: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 })),
      values: fc.array(fc.jsonValue(), { minLength: n, maxLength: n }),
      typed: fc.boolean(),
    });
    fc.assert(
      fc.property(input, ({ chosen, values, typed }) => {
        const mask = maskOf(chosen);
        const typeMeta = typed ? { kind: 'Pod', apiVersion: 'v1' } : undefined;
        const fast = compiled(podSpec, mask, typed)(typeMeta, ...values);
        const slow = byKeys(podSpec, shownFields(podSpec, mask))(typeMeta, ...values);
        const names = [...chosen].sort((a, b) => a - b).map((i) => podSpec.fields[i]!.name);
        expect(Object.keys(fast)).toEqual(typed ? ['kind', 'apiVersion', ...names] : names);
        expect(Object.keys(slow)).toEqual(Object.keys(fast));
        expect(slow).toStrictEqual(fast);
      }),
    );
  });
});
