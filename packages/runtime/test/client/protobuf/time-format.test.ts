import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, formatMicroTime, formatTime } from '../../../src/transport/protobuf/time-format.js';

describe('times and durations as Kubernetes JSON writes them', () => {
  it('formats durations as Go does', () => {
    // Expected values are Go's time.Duration.String() of the same nanoseconds.
    const cases: Array<[number, string]> = [
      [0, '0s'],
      [1, '1ns'],
      [999, '999ns'],
      [1_500, '1.5µs'],
      [1_000_000, '1ms'],
      [1_234_567, '1.234567ms'],
      [1_500_000_000, '1.5s'],
      [90e9, '1m30s'],
      [3600e9, '1h0m0s'],
      [26 * 3600e9 + 3 * 60e9 + 4.005e9, '26h3m4.005s'],
      [-1_500_000_000, '-1.5s'],
      [300e9, '5m0s'],
    ];
    for (const [ns, text] of cases) expect(formatDuration(ns)).toBe(text);
  });

  it('formats times in UTC to the second, micro-times to the microsecond', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 253402300799 }),
        fc.integer({ min: 0, max: 999_999_999 }),
        (s, nanos) => {
          const iso = new Date(s * 1000).toISOString().slice(0, 19);
          expect(formatTime(s)).toBe(`${iso}Z`);
          const micro = formatMicroTime(s, nanos);
          expect(micro).toBe(`${iso}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`);
          expect(Date.parse(micro)).toBe(s * 1000 + Math.floor(nanos / 1e6));
        },
      ),
    );
  });
});
