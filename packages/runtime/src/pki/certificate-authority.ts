/**
 * The house's one test PKI: a throw-away certificate authority that issues serving and client
 * certificates, so test servers (envtest's kube-apiserver and webhooks, the VCD simulator) serve
 * real HTTPS their clients verify, and Kubernetes users authenticate by certificate. ECDSA P-256
 * keys from node:crypto (made in about a millisecond), certificates encoded by `der.ts`; no
 * dependency. A CA made elsewhere (Cluster API's RSA etcd CA) can be read from PEM and sign too.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
  X509Certificate,
} from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
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
import { certificateNames } from './der-read.js';

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface CertPair {
  cert: string;
  key: string;
}

const ECDSA_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));
const RSA_SHA256 = sequence(oid('1.2.840.113549.1.1.11'), Buffer.from([0x05, 0x00]));
const COMMON_NAME = '2.5.4.3';
const ORGANIZATION = '2.5.4.10';
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const DAY_MS = 86_400_000;
/** The names a loopback test server answers to. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '::1'];

/** A distinguished name: the common name, then one O per group (Kubernetes reads groups from O). */
function distinguishedName(commonName: string, organizations: readonly string[] = []): Buffer {
  const rdn = (type: string, value: string) => set(sequence(oid(type), utf8(value)));
  return sequence(rdn(COMMON_NAME, commonName), ...organizations.map((o) => rdn(ORGANIZATION, o)));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical
    ? sequence(oid(id), boolean(true), octetString(value))
    : sequence(oid(id), octetString(value));
}

const keyId = (publicKey: KeyObject): Buffer =>
  createHash('sha1')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest();

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const full = new URL(`http://[${ip}]/`).hostname.slice(1, -1); // normalised IPv6
  const [head = '', tail = ''] = full.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = full.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return Buffer.concat(groups.map((g) => Buffer.from(g.padStart(4, '0'), 'hex')));
}

/** A subjectAltName entry: an IP address or a DNS name. */
const altName = (host: string): Buffer =>
  isIP(host) ? implicit(7, ipBytes(host)) : implicit(2, Buffer.from(host, 'ascii'));

interface CertSpec {
  subject: Buffer;
  issuer: Buffer;
  publicKey: KeyObject;
  signingKey: KeyObject;
  issuerKeyId: Buffer;
  /** The signature algorithm of `signingKey`: ECDSA or RSA, each with SHA-256. */
  algorithm: Buffer;
  extensions: Buffer[];
}

function certificate(spec: CertSpec): string {
  const now = Date.now();
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(Buffer.concat([Buffer.from([1]), randomBytes(15)])),
    spec.algorithm,
    spec.issuer,
    sequence(utcTime(new Date(now - DAY_MS)), utcTime(new Date(now + 5 * 365 * DAY_MS))),
    spec.subject,
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
  const der = sequence(tbs, spec.algorithm, bitString(sign('sha256', tbs, spec.signingKey)));
  const b64 = der.toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE-----\n${b64}${b64.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`;
}

const newKeys = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const pkcs8 = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }).toString();

/** The signature algorithm a CA's key signs with, or an error naming a key type it cannot. */
function algorithmOf(key: KeyObject): Buffer {
  if (key.asymmetricKeyType === 'ec') return ECDSA_SHA256;
  if (key.asymmetricKeyType === 'rsa') return RSA_SHA256;
  throw new Error(`a CA key of type ${key.asymmetricKeyType} is not supported`);
}

/** A certificate authority for tests: it signs serving, peer and client certificates. */
export class CertificateAuthority {
  private constructor(
    private readonly privateKey: KeyObject,
    /** The CA certificate in PEM: clients trust it. */
    readonly certPem: string,
    private readonly subject: Buffer,
    /** How issued certificates name this CA: its own Subject Key Identifier when it has one. */
    private readonly ownKeyId: Buffer = keyId(createPublicKey(privateKey)),
  ) {}

  /** A new self-signed CA, valid from a day ago for five years. */
  static create(commonName: string): CertificateAuthority {
    const keys = newKeys();
    const subject = distinguishedName(commonName);
    const certPem = certificate({
      subject,
      issuer: subject,
      publicKey: keys.publicKey,
      signingKey: keys.privateKey,
      issuerKeyId: keyId(keys.publicKey),
      algorithm: ECDSA_SHA256,
      extensions: [
        extension('2.5.29.19', true, sequence(boolean(true))),
        extension('2.5.29.15', true, bitString(Buffer.from([0x06]), 1)), // keyCertSign, cRLSign
      ],
    });
    return new CertificateAuthority(keys.privateKey, certPem, subject);
  }

  /**
   * Loads a CA {@link save} wrote (so test workers can sign user certificates): named in what it
   * issues by its certificate's own subject bytes, as {@link fromPem} does.
   */
  static load(dir: string): CertificateAuthority {
    const certPem = readFileSync(join(dir, 'ca.crt'), 'utf8');
    return CertificateAuthority.fromPem(certPem, readFileSync(join(dir, 'ca.key'), 'utf8'));
  }

  /**
   * A CA from its PEM certificate and key (PKCS#1, SEC1 or PKCS#8; RSA or ECDSA), such as the
   * `<cluster>-etcd` CA Cluster API writes into a control-plane machine's bootstrap data. It is
   * named in what it issues exactly as its certificate names itself (subject bytes, key identifier:
   * Go's crypto/x509 derives the latter otherwise than here).
   */
  static fromPem(certPem: string, keyPem: string): CertificateAuthority {
    const privateKey = createPrivateKey(keyPem);
    algorithmOf(privateKey);
    const { subject, subjectKeyId } = certificateNames(new X509Certificate(certPem).raw);
    return new CertificateAuthority(privateKey, certPem, subject, subjectKeyId);
  }

  /** Writes `ca.crt` and `ca.key` (owner-only) into `dir`. */
  save(dir: string): void {
    writePair(dir, 'ca', { cert: this.certPem, key: pkcs8(this.privateKey) });
  }

  /** A serving certificate for `hosts` (DNS names and IP addresses; loopback by default). */
  issueServing(commonName: string, hosts: readonly string[] = LOOPBACK_HOSTS): CertPair {
    return this.issue(
      distinguishedName(commonName),
      [SERVER_AUTH],
      [extension('2.5.29.17', false, sequence(...hosts.map(altName)))],
    );
  }

  /** A certificate for serving and as a client on loopback (an etcd member's, for its peers). */
  issuePeer(commonName: string, hosts: readonly string[] = ['127.0.0.1', 'localhost']): CertPair {
    return this.issue(
      distinguishedName(commonName),
      [SERVER_AUTH, CLIENT_AUTH],
      [extension('2.5.29.17', false, sequence(...hosts.map(altName)))],
    );
  }

  /** A client certificate: Kubernetes reads the user name from CN and the groups from O. */
  issueClient(user: string, groups: readonly string[] = []): CertPair {
    return this.issue(distinguishedName(user, groups), [CLIENT_AUTH], []);
  }

  private issue(subject: Buffer, usages: readonly string[], extra: Buffer[]): CertPair {
    const keys = newKeys();
    const cert = certificate({
      subject,
      issuer: this.subject,
      publicKey: keys.publicKey,
      signingKey: this.privateKey,
      issuerKeyId: this.ownKeyId,
      algorithm: algorithmOf(this.privateKey),
      extensions: [
        extension('2.5.29.19', true, sequence()),
        extension('2.5.29.15', true, bitString(Buffer.from([0x80]), 7)), // digitalSignature
        extension('2.5.29.37', false, sequence(...usages.map(oid))),
        ...extra,
      ],
    });
    return { cert, key: pkcs8(keys.privateKey) };
  }
}

/** Writes `<name>.crt` and `<name>.key` (owner-only) into `dir`. */
export function writePair(dir: string, name: string, pair: CertPair): void {
  writeFileSync(join(dir, `${name}.crt`), pair.cert);
  writeFileSync(join(dir, `${name}.key`), pair.key, { mode: 0o600 });
}

/** A key pair that signs and verifies service account tokens, written as `sa.pub` and `sa.key`. */
export function writeServiceAccountKeys(dir: string): { publicKeyFile: string; privateKeyFile: string } {
  const keys = newKeys();
  const publicKeyFile = join(dir, 'sa.pub');
  const privateKeyFile = join(dir, 'sa.key');
  writeFileSync(publicKeyFile, keys.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  writeFileSync(privateKeyFile, pkcs8(keys.privateKey), { mode: 0o600 });
  return { publicKeyFile, privateKeyFile };
}
