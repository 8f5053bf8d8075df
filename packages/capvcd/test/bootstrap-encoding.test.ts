/**
 * Bootstrap data in guestinfo: as the Secret holds it when it fits one guestinfo value (byte for
 * byte, as before), gzip+base64 when only that fits, refused with the sizes when nothing fits; the
 * guest always gets back exactly the Secret's bytes.
 */
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeBootstrap, GUESTINFO_VALUE_LIMIT, guestinfoFor } from '../src/guestinfo.js';

/** What the guest reads back from a value and its encoding. */
const decode = (value: string, encoding: string): Buffer =>
  encoding === 'gzip+base64' ? gunzipSync(Buffer.from(value, 'base64')) : Buffer.from(value, 'base64');

/** Bootstrap bytes of many sizes: cloud-config-like text (compressible) or random bytes (not). */
const payload = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: 400_000 }), fc.string({ minLength: 1, maxLength: 40 }))
    .map(([n, line]) =>
      Buffer.from(`#cloud-config\n${`${line}\n`.repeat(Math.ceil(n / (line.length + 1)))}`),
    ),
  fc.integer({ min: 0, max: 120_000 }).map((n) => randomBytes(n)),
);

describe('encodeBootstrap', () => {
  it('round-trips, fits the limit, is plain whenever plain fits, refuses only what gzip cannot fit', () => {
    fc.assert(
      fc.property(payload, (bytes) => {
        const base64 = bytes.toString('base64');
        const out = encodeBootstrap(base64);
        if ('error' in out) {
          expect(base64.length).toBeGreaterThan(GUESTINFO_VALUE_LIMIT);
          expect(out.error).toMatch(/over the 65536-byte limit/);
          return;
        }
        expect(out.value.length).toBeLessThanOrEqual(GUESTINFO_VALUE_LIMIT);
        expect(decode(out.value, out.encoding).equals(bytes)).toBe(true);
        expect(out.encoding === 'base64').toBe(base64.length <= GUESTINFO_VALUE_LIMIT);
        if (out.encoding === 'base64') expect(out.value).toBe(base64);
      }),
      { numRuns: 60 },
    );
  });

  it('a large cloud-config goes gzip+base64 in the right keys; incompressible data is refused', () => {
    const large = Buffer.from(`#cloud-config\n${'write_files: []\n'.repeat(20_000)}`).toString('base64');
    const encoded = encodeBootstrap(large);
    if ('error' in encoded) throw new Error(encoded.error);
    const keys = guestinfoFor(
      { valueBase64: large, format: 'ignition', encoded },
      { instanceId: 'i', hostname: 'h' },
    );
    expect(keys['guestinfo.ignition.config.data.encoding']).toBe('gzip+base64');
    expect(keys['guestinfo.ignition.config.data']).toBe(encoded.value);
    expect('error' in encodeBootstrap(randomBytes(100_000).toString('base64'))).toBe(true);
  });
});
