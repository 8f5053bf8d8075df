/** The metrics certificate's origin, and the self-signed pair the manager makes without one. */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { connect, createServer } from 'node:tls';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { metricsCertOrigin, SelfSignedCert } from '../../../src/manager/secure-metrics/self-signed-cert.js';
import { selfSignedServing } from '../../../src/pki/self-signed.js';

it('reads the files of a named folder, and makes a pair only when none is named', () => {
  fc.assert(
    fc.property(fc.option(fc.string(), { nil: undefined }), (certDir) => {
      const origin = metricsCertOrigin(certDir);
      if (certDir === undefined || certDir.trim() === '') expect(origin).toEqual({ kind: 'self-signed' });
      else expect(origin).toEqual({ kind: 'files', certDir });
    }),
  );
});

it('makes a serving chain (leaf, then its throw-away CA) for loopback and the host name', () => {
  const pair = selfSignedServing('capstan-metrics');
  const pems = pair.cert.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----\n/g) ?? [];
  expect(pems).toHaveLength(2);
  const [leaf, ca] = pems.map((pem) => new X509Certificate(pem));
  expect(leaf?.subject).toBe('CN=capstan-metrics');
  expect(leaf?.checkIssued(ca as X509Certificate)).toBe(true);
  expect(leaf?.verify((ca as X509Certificate).publicKey)).toBe(true);
  expect(leaf?.checkHost('localhost')).toBe('localhost');
  expect(leaf?.checkIP('127.0.0.1')).toBe('127.0.0.1');
  expect(leaf?.checkPrivateKey(createPrivateKey(pair.key))).toBe(true);
});

it('serves TLS with the pair made at start, the same pair on every start, none on reload', async () => {
  const source = new SelfSignedCert();
  const first = source.start();
  expect(source.start().digest).toBe(first.digest);
  const server = createServer({ cert: first.cert, key: first.key }, (s) => s.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const issuer = await new Promise<string>((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(String(socket.getPeerCertificate().issuer.CN ?? ''));
      socket.end();
    });
    socket.on('error', reject);
  });
  server.close();
  source.stop();
  expect(issuer).toMatch(/^capstan-metrics-ca@\d+$/);
});
