/** The generated CA and server certificate. */
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateTls } from '../src/index.js';

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
