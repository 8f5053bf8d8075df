import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration, readDuration } from '../../src/helpers/index.js';

describe('durations read from resources', () => {
  it('parses Go durations', () => {
    expect(readDuration('30m')).toBe(1_800_000);
    expect(readDuration('1h30m')).toBe(5_400_000);
    // Go writes microseconds with either sign: U+00B5 MICRO SIGN and U+03BC GREEK SMALL LETTER MU.
    expect(readDuration('1500\u00b5s')).toBe(2);
    expect(readDuration('1500\u03bcs')).toBe(2);
    expect(readDuration('1.5h')).toBe(5_400_000);
    expect(readDuration('250ms')).toBe(250);
    for (const bad of ['', '30', '-5m', '5 m', 'm', 30, null]) expect(readDuration(bad)).toBeUndefined();
  });

  it('never throws, and agrees with the flag parser wherever it answers', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^[0-9.]{1,4}(h|m|s|ms|us|ns|x)?$/)), (raw) => {
        const read = readDuration(raw);
        if (read !== undefined) expect(read).toBe(Math.round(parseDuration(raw)));
      }),
    );
  });

  it('reads back what formatDuration writes, to the millisecond', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 * 24 * 3_600_000 }), (ms) => {
        expect(readDuration(formatDuration(ms))).toBe(ms);
      }),
    );
  });
});
