/** The test PKI: certificates node:crypto and a real TLS handshake accept, and a CA that reloads. */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { CertificateAuthority, writeServiceAccountKeys } from '../../src/testing/index.js';

const dir = mkdtempSync(join(tmpdir(), 'capstan-pki-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('CertificateAuthority', () => {
  it('issues client certificates with the user as CN and the groups as O, clientAuth only', () => {
    const ca = CertificateAuthority.create('test-ca');
    const cert = new X509Certificate(ca.issueClient('alice', ['dev', 'system:masters']).cert);
    expect(cert.subject.split('\n')).toEqual(['CN=alice', 'O=dev', 'O=system:masters']);
    expect(cert.issuer).toBe('CN=test-ca');
    expect(cert.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
  });

  it('reloads from what it saved (key owner-only) and signs certificates the first copy trusts', () => {
    const ca = CertificateAuthority.create('saved-ca');
    ca.save(dir);
    expect(statSync(join(dir, 'ca.key')).mode & 0o077).toBe(0);
    const again = CertificateAuthority.load(dir);
    expect(again.certPem).toBe(ca.certPem);
    const cert = new X509Certificate(again.issueServing('srv').cert);
    expect(cert.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
  });

  it('makes a serving and a client certificate that a TLS handshake with both sides verifying accepts', async () => {
    const ca = CertificateAuthority.create('handshake-ca');
    const serving = ca.issueServing('loopback');
    const client = ca.issueClient('bob', ['team']);
    const server = createServer(
      { cert: serving.cert, key: serving.key, ca: ca.certPem, requestCert: true, rejectUnauthorized: true },
      (req, res) => res.end((req.socket as TLSSocket).getPeerCertificate().subject.CN),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      for (const host of ['127.0.0.1', 'localhost']) {
        const answer = await new Promise<string>((resolve, reject) => {
          const req = request(
            { host, port, path: '/', ca: ca.certPem, cert: client.cert, key: client.key, agent: false },
            (res) => {
              let body = '';
              res.on('data', (c: Buffer) => {
                body += c.toString();
              });
              res.on('end', () => resolve(body));
            },
          );
          req.on('error', reject);
          req.end();
        });
        expect(answer).toBe('bob');
      }
    } finally {
      server.close();
    }
  });

  it('writes a service account key pair', () => {
    const files = writeServiceAccountKeys(dir);
    expect(statSync(files.privateKeyFile).mode & 0o077).toBe(0);
    expect(statSync(files.publicKeyFile).size).toBeGreaterThan(0);
  });
});
