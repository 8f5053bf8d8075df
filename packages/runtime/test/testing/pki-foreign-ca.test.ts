/**
 * A CA read from PEM, as Cluster API makes one (RSA, its Subject Key Identifier derived its own
 * way, its name encoded as Go encodes it): what it issues chains up to it and names its own key
 * identifier and subject bytes.
 */
import { generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bitString,
  boolean,
  explicit,
  integer,
  octetString,
  oid,
  sequence,
  set,
  tlv,
  utcTime,
} from '../../src/pki/der.js';
import { certificateNames, children, extensionValue, readElement } from '../../src/pki/der-read.js';
import { CertificateAuthority } from '../../src/testing/index.js';

const RSA_SHA256 = sequence(oid('1.2.840.113549.1.1.11'), Buffer.from([0x05, 0x00]));
const FOREIGN_KEY_ID = Buffer.from('a98d8b6b951df915ce3da035730b4b0497b87a2b', 'hex');

/** An RSA CA named `CN=kubernetes` as a PrintableString (Go's choice), with a key id of its own. */
function foreignCa(): { certPem: string; keyPem: string } {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const name = sequence(set(sequence(oid('2.5.4.3'), tlv(0x13, Buffer.from('kubernetes')))));
  const now = Date.now();
  const ext = (id: string, value: Buffer) => sequence(oid(id), boolean(true), octetString(value));
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(randomBytes(8)),
    RSA_SHA256,
    name,
    sequence(utcTime(new Date(now - 60_000)), utcTime(new Date(now + 86_400_000))),
    name,
    keys.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(
      3,
      sequence(
        ext('2.5.29.19', sequence(boolean(true))),
        ext('2.5.29.15', bitString(Buffer.from([0x06]), 1)),
        sequence(oid('2.5.29.14'), octetString(octetString(FOREIGN_KEY_ID))),
      ),
    ),
  );
  const der = sequence(tbs, RSA_SHA256, bitString(sign('sha256', tbs, keys.privateKey)));
  const b64 = der.toString('base64').replace(/.{64}/g, '$&\n');
  return {
    certPem: `-----BEGIN CERTIFICATE-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`,
    keyPem: keys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
  };
}

const AUTHORITY_KEY_ID = Buffer.from([0x06, 0x03, 0x55, 0x1d, 0x23]); // OID 2.5.29.35

/** The key identifier in an issued certificate's Authority Key Identifier extension, parsed. */
function authorityKeyId(certPem: string): string | undefined {
  const value = extensionValue(new X509Certificate(certPem).raw, AUTHORITY_KEY_ID);
  if (value === undefined) return undefined;
  // AuthorityKeyIdentifier ::= SEQUENCE { keyIdentifier [0] IMPLICIT OCTET STRING OPTIONAL, ... }
  const keyIdentifier = children(readElement(value).content).find((e) => e.tag === 0x80);
  return keyIdentifier?.content.toString('hex');
}

describe('a CA from PEM', () => {
  it('issues peer certificates that chain up to an RSA CA and name its own key identifier', () => {
    const ca = foreignCa();
    const pair = CertificateAuthority.fromPem(ca.certPem, ca.keyPem).issuePeer('cp-0');
    const [issued, issuer] = [new X509Certificate(pair.cert), new X509Certificate(ca.certPem)];
    expect(issued.checkIssued(issuer)).toBe(true);
    expect(issued.verify(issuer.publicKey)).toBe(true);
    expect(issued.subjectAltName).toContain('IP Address:127.0.0.1');
    expect(authorityKeyId(pair.cert)).toBe(FOREIGN_KEY_ID.toString('hex'));
    expect(authorityKeyId(ca.certPem)).toBeUndefined(); // the CA's own certificate names no authority
    expect(issued.issuer).toBe('CN=kubernetes');
    expect(issued.keyUsage).toEqual(expect.arrayContaining(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']));
  });

  it('saved and loaded, names itself as its certificate does (not rebuilt from its CN)', () => {
    const ca = foreignCa();
    const dir = mkdtempSync(join(tmpdir(), 'capstan-foreign-ca-'));
    try {
      CertificateAuthority.fromPem(ca.certPem, ca.keyPem).save(dir);
      const pair = CertificateAuthority.load(dir).issueClient('alice');
      const [issued, issuer] = [new X509Certificate(pair.cert), new X509Certificate(ca.certPem)];
      // The PrintableString name and the foreign key id survive the round trip, so it chains.
      expect(issued.checkIssued(issuer)).toBe(true);
      expect(authorityKeyId(pair.cert)).toBe(FOREIGN_KEY_ID.toString('hex'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the subject and key identifier of a certificate it did not make', () => {
    const { subject, subjectKeyId } = certificateNames(new X509Certificate(foreignCa().certPem).raw);
    expect(subject.includes(Buffer.from('kubernetes'))).toBe(true);
    expect(subjectKeyId?.toString('hex')).toBe(FOREIGN_KEY_ID.toString('hex'));
  });

  it('refuses a key type it cannot sign with', () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => CertificateAuthority.fromPem(foreignCa().certPem, keyPem)).toThrow(
      'a CA key of type ed25519 is not supported',
    );
  });
});
