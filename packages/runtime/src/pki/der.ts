/**
 * Minimal DER (ASN.1) encoder: just the types an X.509 certificate needs. Node can sign and
 * parse certificates but not build them, and a CA for tests is small enough not to need a library.
 */

/** Encodes a tag-length-value triple. */
export function tlv(tag: number, value: Uint8Array): Buffer {
  const len = value.length;
  let head: number[];
  if (len < 0x80) head = [tag, len];
  else {
    const bytes: number[] = [];
    for (let n = len; n > 0; n >>= 8) bytes.unshift(n & 0xff);
    head = [tag, 0x80 | bytes.length, ...bytes];
  }
  return Buffer.concat([Buffer.from(head), value]);
}

export const sequence = (...items: Uint8Array[]): Buffer => tlv(0x30, Buffer.concat(items));
export const set = (...items: Uint8Array[]): Buffer => tlv(0x31, Buffer.concat(items));
export const octetString = (v: Uint8Array): Buffer => tlv(0x04, v);
export const utf8 = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'));
export const boolean = (v: boolean): Buffer => tlv(0x01, Buffer.from([v ? 0xff : 0]));
/** A BIT STRING whose last byte has `unusedBits` padding bits. */
export const bitString = (v: Uint8Array, unusedBits = 0): Buffer =>
  tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), v]));
/** Context-specific constructed tag [n] (explicit tagging). */
export const explicit = (n: number, inner: Uint8Array): Buffer => tlv(0xa0 | n, inner);
/** Context-specific primitive tag [n] (implicit tagging of a primitive value). */
export const implicit = (n: number, value: Uint8Array): Buffer => tlv(0x80 | n, value);

/** A non-negative INTEGER from big-endian bytes (a leading zero keeps it positive). */
export function integer(bytes: Uint8Array): Buffer {
  let b = Buffer.from(bytes);
  let start = 0;
  while (start < b.length - 1 && b[start] === 0) start++;
  b = b.subarray(start);
  if ((b[0] ?? 0) & 0x80) b = Buffer.concat([Buffer.from([0]), b]);
  return tlv(0x02, b);
}

/** An OBJECT IDENTIFIER from dotted notation. */
export function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out: number[] = [40 * (parts[0] ?? 0) + (parts[1] ?? 0)];
  for (const p of parts.slice(2)) {
    const chunk: number[] = [p & 0x7f];
    for (let n = p >>> 7; n > 0; n >>>= 7) chunk.unshift((n & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime (valid for years 1950-2049, which is all a test CA needs). */
export function utcTime(d: Date): Buffer {
  const p = (n: number) => String(n).padStart(2, '0');
  const s = `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(
    d.getUTCMinutes(),
  )}${p(d.getUTCSeconds())}Z`;
  return tlv(0x17, Buffer.from(s, 'ascii'));
}
