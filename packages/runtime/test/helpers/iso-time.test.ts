import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoSeconds, isoTimestamp } from '../../src/iso-time.js';

// Date.UTC reads years 0-99 as 1900-1999: year 0 is set on a Date.
const YEAR_0 = new Date(0).setUTCFullYear(0, 0, 1);
const YEAR_10000 = Date.UTC(10000, 0, 1);

describe('isoTimestamp', () => {
  it('writes what Date#toISOString writes, across years 0-9999', () => {
    const span = YEAR_10000 - YEAR_0;
    const samples = [0, -1, 1, 999, 1000, YEAR_0, YEAR_10000 - 1, Date.UTC(2026, 11, 7, 13, 12, 52, 83)];
    for (let i = 0; i < 5_000; i++) samples.push(Math.floor(YEAR_0 + Math.random() * span));
    for (const ms of samples) expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
  });

  it("falls back to Date#toISOString's extended years outside 0-9999", () => {
    expect(isoTimestamp(YEAR_10000)).toBe('+010000-01-01T00:00:00.000Z');
    expect(isoTimestamp(YEAR_0 - 1)).toBe('-000001-12-31T23:59:59.999Z');
  });

  it('throws for an invalid time, as Date#toISOString does', () => {
    expect(() => isoTimestamp(Number.NaN)).toThrow(RangeError);
  });
});

describe('isoSeconds', () => {
  it('writes a metav1.Time: whole seconds, the milliseconds dropped', () => {
    expect(isoSeconds(Date.UTC(2026, 11, 7, 13, 12, 52, 999))).toBe('2026-12-07T13:12:52Z');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: YEAR_10000 - 1 }), (ms) => {
        expect(isoSeconds(ms)).toBe(new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));
        expect(Date.parse(isoSeconds(ms))).toBe(ms - (ms % 1000));
      }),
    );
  });
});
