// @peculiar/x509 resolves its ASN.1 codecs through tsyringe, which needs the Reflect polyfill first.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as webcrypto.Crypto);

// ECDSA P-256 keys are generated in milliseconds in pure JS and are accepted by every component.
const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const day = 24 * 60 * 60 * 1000;

/** A PEM certificate and its PEM (PKCS#8) private key. */
export interface CertPair {
  cert: string;
  key: string;
}

async function toPem(keys: webcrypto.CryptoKeyPair, cert: x509.X509Certificate): Promise<CertPair> {
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: cert.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

const newKeys = () =>
  webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']) as Promise<webcrypto.CryptoKeyPair>;
const serial = () =>
  Buffer.from(webcrypto.getRandomValues(new Uint8Array(12)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');

/** A certificate authority that signs the serving and client certificates of one control plane. */
export class CertificateAuthority {
  private constructor(
    private readonly keys: webcrypto.CryptoKeyPair,
    private readonly certificate: x509.X509Certificate,
  ) {}

  /** The CA certificate in PEM. */
  get certPem(): string {
    return this.certificate.toString('pem');
  }

  /** Creates a new self-signed CA. */
  static async create(commonName: string): Promise<CertificateAuthority> {
    const keys = await newKeys();
    const certificate = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name: new x509.Name([{ CN: [commonName] }]),
      notBefore: new Date(Date.now() - day),
      notAfter: new Date(Date.now() + 365 * day),
      signingAlgorithm: algorithm,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    return new CertificateAuthority(keys, certificate);
  }

  /** Writes `ca.crt` and `ca.key` into `dir`. */
  async save(dir: string): Promise<void> {
    const pair = await toPem(this.keys, this.certificate);
    writeFileSync(join(dir, 'ca.crt'), pair.cert);
    writeFileSync(join(dir, 'ca.key'), pair.key, { mode: 0o600 });
  }

  /** Loads a CA saved by {@link CertificateAuthority.save} (so test workers can sign user certificates). */
  static async load(dir: string): Promise<CertificateAuthority> {
    const certificate = new x509.X509Certificate(readFileSync(join(dir, 'ca.crt'), 'utf8'));
    const pkcs8 = x509.PemConverter.decodeFirst(readFileSync(join(dir, 'ca.key'), 'utf8'));
    const privateKey = await webcrypto.subtle.importKey('pkcs8', pkcs8, algorithm, true, ['sign']);
    const publicKey = await certificate.publicKey.export(
      algorithm,
      ['verify'],
      webcrypto as unknown as webcrypto.Crypto,
    );
    return new CertificateAuthority({ privateKey, publicKey } as webcrypto.CryptoKeyPair, certificate);
  }

  /** Issues a serving certificate for loopback (127.0.0.1, ::1, localhost). */
  issueServing(commonName: string): Promise<CertPair> {
    return this.issue([{ CN: [commonName] }], x509.ExtendedKeyUsage.serverAuth, [
      { type: 'ip', value: '127.0.0.1' },
      { type: 'ip', value: '::1' },
      { type: 'dns', value: 'localhost' },
    ]);
  }

  /**
   * Issues a client certificate: Kubernetes reads the user name from CN and the groups from O.
   */
  issueClient(user: string, groups: string[] = []): Promise<CertPair> {
    return this.issue(
      [{ CN: [user] }, ...groups.map((g) => ({ O: [g] }))],
      x509.ExtendedKeyUsage.clientAuth,
      [],
    );
  }

  private async issue(
    subject: x509.JsonName,
    usage: string,
    altNames: x509.JsonGeneralName[],
  ): Promise<CertPair> {
    const keys = await newKeys();
    const extensions: x509.Extension[] = [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([usage]),
      await x509.AuthorityKeyIdentifierExtension.create(this.keys.publicKey),
    ];
    if (altNames.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(altNames));
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: new x509.Name(subject),
      issuer: this.certificate.subjectName,
      notBefore: new Date(Date.now() - day),
      notAfter: new Date(Date.now() + 365 * day),
      signingAlgorithm: algorithm,
      publicKey: keys.publicKey,
      signingKey: this.keys.privateKey,
      extensions,
    });
    return toPem(keys, cert);
  }
}

/** A key pair for signing and verifying service account tokens, as PEM files. */
export async function writeServiceAccountKeys(
  dir: string,
): Promise<{ publicKeyFile: string; privateKeyFile: string }> {
  const keys = await newKeys();
  const spki = await webcrypto.subtle.exportKey('spki', keys.publicKey);
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  const publicKeyFile = join(dir, 'sa.pub');
  const privateKeyFile = join(dir, 'sa.key');
  writeFileSync(publicKeyFile, x509.PemConverter.encode(spki, 'PUBLIC KEY'));
  writeFileSync(privateKeyFile, x509.PemConverter.encode(pkcs8, 'PRIVATE KEY'), { mode: 0o600 });
  return { publicKeyFile, privateKeyFile };
}

/** Writes `<name>.crt` and `<name>.key` (owner-only) into `dir`. */
export function writePair(dir: string, name: string, pair: CertPair): void {
  writeFileSync(join(dir, `${name}.crt`), pair.cert);
  writeFileSync(join(dir, `${name}.key`), pair.key, { mode: 0o600 });
}
