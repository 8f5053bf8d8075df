/**
 * The wait after VCD errors: per object, doubling from the curve's first step to its cap, never a
 * try before the wait is over (however often the object is reconciled), started over by a success;
 * and which request errors count as a failed TLS handshake.
 */
import { ManualClock } from '@capstan/runtime/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VcdErrorBackoff } from '../src/vcd/error-backoff.js';
import { handshakeFailure } from '../src/vcd/site.js';

const curve = { initialMs: 1_000, maxMs: 60_000 };

describe('VcdErrorBackoff', () => {
  it('never lets an object try before its wait is over; waits double per error in a row, to the cap', () => {
    const event = fc.record({
      key: fc.constantFrom('a', 'b'),
      what: fc.constantFrom('error', 'success', 'early'),
      afterMs: fc.integer({ min: 0, max: 70_000 }),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 40 }), (events) => {
        const clock = new ManualClock(0);
        const backoff = new VcdErrorBackoff(clock, curve);
        const streak = new Map<string, number>();
        const until = new Map<string, number>();
        for (const e of events) {
          clock.advance(e.afterMs);
          const left = backoff.remaining(e.key);
          expect(left).toBe(Math.max(0, (until.get(e.key) ?? 0) - clock.now()));
          if (left > 0 || e.what === 'early') continue; // a reconcile in backoff makes no call
          if (e.what === 'success') {
            backoff.succeeded(e.key);
            streak.delete(e.key);
            until.delete(e.key);
          } else {
            const n = streak.get(e.key) ?? 0;
            const delay = backoff.failed(e.key);
            expect(delay).toBe(Math.min(curve.maxMs, curve.initialMs * 2 ** n));
            streak.set(e.key, n + 1);
            until.set(e.key, clock.now() + delay);
          }
        }
      }),
    );
  });
});

describe('handshakeFailure', () => {
  it('names certificate errors, not refused connections', () => {
    const err = (code: string, message: string) => Object.assign(new Error(message), { code });
    expect(handshakeFailure(err('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'))).toBe(
      'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate',
    );
    expect(handshakeFailure(err('ERR_TLS_CERT_ALTNAME_INVALID', 'altname'))).toContain('ALTNAME');
    expect(handshakeFailure(err('ECONNREFUSED', 'refused'))).toBeUndefined();
    expect(handshakeFailure(new Error('no code'))).toBeUndefined();
  });
});
