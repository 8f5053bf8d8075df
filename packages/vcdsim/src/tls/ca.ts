/**
 * A throw-away certificate authority and a server certificate signed by it, so the simulator serves
 * real HTTPS that clients verify (instead of turning verification off, as today's provider does).
 */
import { createHash, generateKeyPairSync, KeyObject, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';
import {
  bitString,
  boolean,
  explicit,
  implicit,
  integer,
  octetString,
  oid,
  sequence,
  set,
  utcTime,
  utf8,
} from './der.js';

/** PEM material for an HTTPS server and the CA that clients trust. */
export interface TlsMaterial {
  /** The CA certificate (PEM): give it to clients as their trust root. */
  caPem: string;
  /** The server certificate (PEM), signed by the CA. */
  certPem: string;
  /** The server's private key (PKCS#8 PEM). */
  keyPem: string;
}

const ECDSA_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));

function name(cn: string): Buffer {
  return sequence(set(sequence(oid('2.5.4.3'), utf8(cn))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical
    ? sequence(oid(id), boolean(true), octetString(value))
    : sequence(oid(id), octetString(value));
}

function keyId(pub: KeyObject): Buffer {
  return createHash('sha1')
    .update(pub.export({ type: 'spki', format: 'der' }))
    .digest();
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const full = new URL(`http://[${ip}]/`).hostname.slice(1, -1); // normalised IPv6
  const [head = '', tail = ''] = full.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = full.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return Buffer.concat(groups.map((g) => Buffer.from(g.padStart(4, '0'), 'hex')));
}

interface CertSpec {
  subject: string;
  issuer: string;
  publicKey: KeyObject;
  signingKey: KeyObject;
  issuerKeyId: Buffer;
  extensions: Buffer[];
}

function certificate(spec: CertSpec): string {
  const now = Date.now();
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(Buffer.concat([Buffer.from([1]), randomBytes(15)])),
    ECDSA_SHA256,
    name(spec.issuer),
    sequence(utcTime(new Date(now - 3600_000)), utcTime(new Date(now + 5 * 365 * 86400_000))),
    name(spec.subject),
    spec.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(
      3,
      sequence(
        ...spec.extensions,
        extension('2.5.29.14', false, octetString(keyId(spec.publicKey))),
        extension('2.5.29.35', false, sequence(implicit(0, spec.issuerKeyId))),
      ),
    ),
  );
  const der = sequence(tbs, ECDSA_SHA256, bitString(sign('sha256', tbs, spec.signingKey)));
  const b64 = der.toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`;
}

/**
 * Generates a fresh CA and a server certificate for the given host names and IP addresses
 * (by default `localhost`, `127.0.0.1` and `::1`). ECDSA P-256, valid for five years.
 */
export function generateTls(hosts: string[] = ['localhost', '127.0.0.1', '::1']): TlsMaterial {
  const ca = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const srv = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const caId = keyId(ca.publicKey);
  const caPem = certificate({
    subject: 'capstan vcdsim CA',
    issuer: 'capstan vcdsim CA',
    publicKey: ca.publicKey,
    signingKey: ca.privateKey,
    issuerKeyId: caId,
    extensions: [
      extension('2.5.29.19', true, sequence(boolean(true))),
      extension('2.5.29.15', true, bitString(Buffer.from([0x06]), 1)), // keyCertSign, cRLSign
    ],
  });
  const san = hosts.map((h) => (isIP(h) ? implicit(7, ipBytes(h)) : implicit(2, Buffer.from(h, 'ascii'))));
  const certPem = certificate({
    subject: hosts[0] ?? 'localhost',
    issuer: 'capstan vcdsim CA',
    publicKey: srv.publicKey,
    signingKey: ca.privateKey,
    issuerKeyId: caId,
    extensions: [
      extension('2.5.29.19', true, sequence()),
      extension('2.5.29.15', true, bitString(Buffer.from([0x80]), 7)), // digitalSignature
      extension('2.5.29.37', false, sequence(oid('1.3.6.1.5.5.7.3.1'))), // serverAuth
      extension('2.5.29.17', false, sequence(...san)),
    ],
  });
  return { caPem, certPem, keyPem: srv.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
