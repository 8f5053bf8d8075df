/** The virtual clock's ordering (property) and the generated CA and server certificate. */
import { X509Certificate } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateTls, VirtualClock } from '../src/index.js';

describe('virtual clock', () => {
  it('runs every timer once, never early, in (due time, scheduling order)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 100 }), { maxLength: 30 }),
        fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 6 }),
        (delays, steps) => {
          const clock = new VirtualClock(0);
          const fired: { i: number; at: number; due: number }[] = [];
          delays.forEach((d, i) => {
            clock.schedule(d, () => fired.push({ i, at: clock.now(), due: d }));
          });
          for (const s of steps) clock.advance(s);
          const elapsed = steps.reduce((a, b) => a + b, 0);
          const expected = delays
            .map((d, i) => ({ d, i }))
            .filter((x) => x.d <= elapsed)
            .sort((a, b) => a.d - b.d || a.i - b.i);
          return (
            fired.length === expected.length &&
            fired.every((f, k) => f.i === expected[k]!.i && f.at === f.due) &&
            clock.pendingCount === delays.length - expected.length
          );
        },
      ),
    );
  });

  it('runs a timer scheduled for "now" by another timer within the same advance, and cancels', () => {
    const clock = new VirtualClock(0);
    const order: string[] = [];
    clock.schedule(10, () => {
      order.push('a');
      clock.schedule(0, () => order.push('b'));
    });
    clock.schedule(20, () => order.push('never')).cancel();
    clock.advance(10);
    expect(order).toEqual(['a', 'b']);
    expect(clock.runAll()).toBe(0);
  });
});

describe('generated TLS material', () => {
  it('is a CA that signed a server certificate for localhost, 127.0.0.1 and ::1', () => {
    const t = generateTls();
    const ca = new X509Certificate(t.caPem);
    const cert = new X509Certificate(t.certPem);
    expect(ca.ca).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(new Date(cert.validTo).getTime()).toBeGreaterThan(Date.now() + 365 * 86400_000);
    const extra = new X509Certificate(generateTls(['localhost', 'vcd.example', '10.1.2.3']).certPem);
    expect(extra.subjectAltName).toBe('DNS:localhost, DNS:vcd.example, IP Address:10.1.2.3');
    // Two calls give two different CAs (nothing is shared between simulators).
    expect(generateTls().caPem).not.toBe(t.caPem);
  });
});
