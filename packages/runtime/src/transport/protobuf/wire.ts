/**
 * Reading the protobuf wire format: varints, length-delimited fields, and skipping what a schema
 * does not know. Only what Kubernetes' encoding uses (proto2, no groups).
 */

/** Bytes that are not the protobuf a decoder expected. */
export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';
}

/** Wire types of a field's tag. */
export const VARINT = 0;
export const FIXED64 = 1;
export const LENGTH_DELIMITED = 2;
export const FIXED32 = 5;

const TWO_32 = 4294967296;

/** Whether `bytes[start, end)` begins with `k8s\0`, the prefix of an encoded Kubernetes object. */
export function hasKubernetesMagic(bytes: Buffer, start: number, end: number): boolean {
  return (
    end - start >= 4 &&
    bytes[start] === 0x6b &&
    bytes[start + 1] === 0x38 &&
    bytes[start + 2] === 0x73 &&
    bytes[start + 3] === 0
  );
}

/** A cursor over one buffer; every read checks its bounds against `end`. */
export class ProtoReader {
  pos: number;

  constructor(
    readonly bytes: Buffer,
    pos = 0,
    public end = bytes.length,
  ) {
    this.pos = pos;
  }

  /** An unsigned varint up to 2^53 (lengths, tags, small numbers) on a fast path; larger ones exactly as int64. */
  varint(): number {
    const bytes = this.bytes;
    let pos = this.pos;
    if (pos >= this.end) throw truncated();
    let b = bytes[pos++]!;
    if (b < 0x80) {
      this.pos = pos;
      return b;
    }
    let low = b & 0x7f;
    let shift = 7;
    // The low 28 bits in plain arithmetic, then the rest as a signed 64-bit value.
    while (shift < 28) {
      if (pos >= this.end) throw truncated();
      b = bytes[pos++]!;
      low |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.pos = pos;
        return low >>> 0;
      }
      shift += 7;
    }
    let high = 0;
    let highShift = 0;
    // Bits 28..63: 4 bits fill the low word, then the high word.
    if (pos >= this.end) throw truncated();
    b = bytes[pos++]!;
    low = (low | ((b & 0x0f) << 28)) >>> 0;
    high = (b & 0x70) >> 4;
    highShift = 3;
    while (b >= 0x80) {
      if (pos >= this.end || highShift > 32) throw truncated();
      b = bytes[pos++]!;
      high = (high | ((b & 0x7f) << highShift)) >>> 0;
      highShift += 7;
    }
    this.pos = pos;
    // Negative int32 and int64 are sent as 10-byte two's complement.
    // One rounding (the final addition), as JSON.parse rounds the decimal: the magnitude's low word
    // plus one is exact on its own.
    if (high & 0x80000000) return -((~high >>> 0) * TWO_32 + ((~low >>> 0) + 1));
    return high * TWO_32 + low;
  }

  /** The end offset of a length-delimited field whose length comes next. */
  delimited(): number {
    const length = this.varint();
    const end = this.pos + length;
    if (length < 0 || end > this.end) throw truncated();
    return end;
  }

  /** A length-delimited string. */
  string(): string {
    const end = this.delimited();
    const start = this.pos;
    this.pos = end;
    return utf8(this.bytes, start, end);
  }

  /** A fixed 64-bit double. */
  double(): number {
    if (this.pos + 8 > this.end) throw truncated();
    const value = this.bytes.readDoubleLE(this.pos);
    this.pos += 8;
    return value;
  }

  /** A fixed 32-bit float. */
  float(): number {
    if (this.pos + 4 > this.end) throw truncated();
    const value = this.bytes.readFloatLE(this.pos);
    this.pos += 4;
    return value;
  }

  /** Skips one field's value of wire type `wireType`. */
  skip(wireType: number): void {
    switch (wireType) {
      case VARINT:
        this.varint();
        return;
      case FIXED64:
        this.pos += 8;
        break;
      case LENGTH_DELIMITED:
        this.pos = this.delimited();
        return;
      case FIXED32:
        this.pos += 4;
        break;
      default:
        throw new ProtobufDecodeError(`protobuf: unsupported wire type ${wireType}`);
    }
    if (this.pos > this.end) throw truncated();
  }
}

function truncated(): ProtobufDecodeError {
  return new ProtobufDecodeError('protobuf: message truncated');
}

/** Node's own slice decoder, without `toString`'s argument handling (present since Node 0.x). */
const utf8Slice = (Buffer.prototype as unknown as { utf8Slice?: (start: number, end: number) => string })
  .utf8Slice;

/**
 * Short strings repeat (kinds, namespaces, label keys and values): each is kept in a small table by
 * a hash of its bytes and handed out again, as V8's JSON.parse shares the short strings it parses.
 * A cached object then holds one copy of "ConfigMap" or "bench", not one of its own.
 */
const SHORT_TABLE_SIZE = 4096;
const shortTable: (string | undefined)[] = new Array(SHORT_TABLE_SIZE).fill(undefined);

/**
 * Decodes UTF-8. Short ASCII strings (keys, small values) are read in JavaScript, through the
 * table above: a call into Node's decoder costs more than the loop for them.
 */
export function utf8(bytes: Buffer, start: number, end: number): string {
  const length = end - start;
  if (length === 0) return '';
  if (length > 12) return decode(bytes, start, end);
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    const c = bytes[i]!;
    if (c >= 0x80) return decode(bytes, start, end);
    hash = Math.imul(hash ^ c, 0x01000193);
  }
  const slot = (hash >>> 0) & (SHORT_TABLE_SIZE - 1);
  const known = shortTable[slot];
  if (known !== undefined && known.length === length && sameAscii(known, bytes, start)) return known;
  // Up to 12: V8 keeps such a concatenation flat (longer ones would be rope strings).
  let text = '';
  for (let i = start; i < end; i++) text += String.fromCharCode(bytes[i]!);
  shortTable[slot] = text;
  return text;
}

function sameAscii(text: string, bytes: Buffer, start: number): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) !== bytes[start + i]) return false;
  return true;
}

function decode(bytes: Buffer, start: number, end: number): string {
  return utf8Slice !== undefined ? utf8Slice.call(bytes, start, end) : bytes.toString('utf8', start, end);
}
