/**
 * A CA read from PEM, as Cluster API makes one (RSA, its Subject Key Identifier derived its own
 * way): certificates it issues chain up to it, and name it by its own key identifier.
 */
import 'reflect-metadata';
import { X509Certificate as NodeX509, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import { CertificateAuthority } from '../src/certs.js';

const rsa = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
};

/** An RSA CA whose Subject Key Identifier is not the one derived from its key here. */
async function foreignCa(): Promise<{ certPem: string; keyPem: string; keyId: string }> {
  const keys = (await webcrypto.subtle.generateKey(rsa, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const keyId = 'a98d8b6b951df915ce3da035730b4b0497b87a2b';
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=kubernetes',
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
    signingAlgorithm: rsa,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true),
      new x509.SubjectKeyIdentifierExtension(keyId),
    ],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { certPem: cert.toString('pem'), keyPem: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'), keyId };
}

describe('a CA from PEM', () => {
  it('issues peer certificates that chain up to an RSA CA and name its own key identifier', async () => {
    const ca = await foreignCa();
    const pair = await (await CertificateAuthority.fromPem(ca.certPem, ca.keyPem)).issuePeer('cp-0');
    const [issued, issuer] = [new NodeX509(pair.cert), new NodeX509(ca.certPem)];
    expect(issued.checkIssued(issuer)).toBe(true);
    expect(issued.verify(issuer.publicKey)).toBe(true);
    expect(issued.subjectAltName).toContain('IP Address:127.0.0.1');
    const aki = new x509.X509Certificate(pair.cert).getExtension(x509.AuthorityKeyIdentifierExtension);
    expect(aki?.keyId).toBe(ca.keyId);
  });

  it('refuses a key type it cannot sign with', async () => {
    const { privateKey } = (await webcrypto.subtle.generateKey({ name: 'Ed25519' }, true, [
      'sign',
      'verify',
    ])) as webcrypto.CryptoKeyPair;
    const keyPem = x509.PemConverter.encode(
      await webcrypto.subtle.exportKey('pkcs8', privateKey),
      'PRIVATE KEY',
    );
    await expect(CertificateAuthority.fromPem((await foreignCa()).certPem, keyPem)).rejects.toThrow(
      'a CA key of type ed25519 is not supported',
    );
  });
});
