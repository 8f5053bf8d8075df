import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtobufDecodeError, ProtoReader, utf8 } from '../../../src/transport/protobuf/wire.js';
import { varint } from './proto-writer.js';

describe('ProtoReader', () => {
  it("reads every safe integer back from its varint, negatives as 10-byte two's complement", () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        const bytes = varint(BigInt(n));
        const r = new ProtoReader(bytes);
        expect(r.varint()).toBe(n);
        expect(r.pos).toBe(bytes.length);
        if (n < 0) expect(bytes.length).toBe(10);
      }),
    );
  });

  it('rounds an int64 beyond 2^53 as JSON.parse rounds its decimal', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (n) => {
        expect(new ProtoReader(varint(n)).varint()).toBe(JSON.parse(n.toString()));
      }),
    );
  });

  it('reads int32 extremes and reads consecutive varints in order', () => {
    const values = [0, 1, 127, 128, 2 ** 28 - 1, 2 ** 28, 2 ** 31 - 1, -(2 ** 31), -1, 2 ** 32];
    const r = new ProtoReader(Buffer.concat(values.map((v) => varint(BigInt(v)))));
    expect(values.map(() => r.varint())).toEqual(values);
  });

  it('refuses a varint or a length that runs past the end', () => {
    expect(() => new ProtoReader(Buffer.from([0x80, 0x80])).varint()).toThrow(ProtobufDecodeError);
    expect(() => new ProtoReader(Buffer.alloc(0)).varint()).toThrow(ProtobufDecodeError);
    expect(() => new ProtoReader(Buffer.from([5, 0x61])).string()).toThrow(/truncated/);
    expect(() => new ProtoReader(Buffer.from([1, 2, 3]), 0, 2).skip(1)).toThrow(/truncated/);
    expect(() => new ProtoReader(Buffer.from([0])).skip(3)).toThrow(/wire type 3/);
  });

  it('decodes UTF-8 exactly, short ASCII and anything else', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.string({ maxLength: 3 }),
        (text, pad) => {
          const bytes = Buffer.from(pad + text + pad, 'utf8');
          const start = Buffer.byteLength(pad);
          expect(utf8(bytes, start, bytes.length - start)).toBe(text);
        },
      ),
    );
  });
});
