// @peculiar/x509 resolves its ASN.1 codecs through tsyringe, which needs the Reflect polyfill first.
import 'reflect-metadata';
import { createPrivateKey, webcrypto } from 'node:crypto';
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
    /** How it signs: ECDSA P-256 for its own CAs; RSA for one read from PEM (as Cluster API makes). */
    private readonly signing: webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams = algorithm,
  ) {}

  /**
   * A CA from its PEM certificate and key (PKCS#1, SEC1 or PKCS#8; RSA or ECDSA P-256), such as the
   * `<cluster>-etcd` CA Cluster API writes into a control-plane machine's bootstrap data.
   */
  static async fromPem(certPem: string, keyPem: string): Promise<CertificateAuthority> {
    const key = createPrivateKey(keyPem);
    const signing =
      key.asymmetricKeyType === 'rsa'
        ? ({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const)
        : key.asymmetricKeyType === 'ec'
          ? algorithm
          : undefined;
    if (!signing) throw new Error(`a CA key of type ${key.asymmetricKeyType} is not supported`);
    const pkcs8 = key.export({ type: 'pkcs8', format: 'der' });
    const privateKey = await webcrypto.subtle.importKey('pkcs8', pkcs8, signing, true, ['sign']);
    const certificate = new x509.X509Certificate(certPem);
    const publicKey = await certificate.publicKey.export(
      signing,
      ['verify'],
      webcrypto as unknown as webcrypto.Crypto,
    );
    return new CertificateAuthority(
      { privateKey, publicKey } as webcrypto.CryptoKeyPair,
      certificate,
      signing,
    );
  }

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

  /** Issues a certificate for serving and as a client on loopback (an etcd member's, for its peers). */
  issuePeer(commonName: string): Promise<CertPair> {
    return this.issue(
      [{ CN: [commonName] }],
      [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth],
      [
        { type: 'ip', value: '127.0.0.1' },
        { type: 'dns', value: 'localhost' },
      ],
    );
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

  /**
   * Names this CA by its own Subject Key Identifier when it has one: a CA made elsewhere (Go's
   * crypto/x509, as Cluster API's) may derive it otherwise than from the key as done here.
   */
  private async authorityKeyIdentifier(): Promise<x509.AuthorityKeyIdentifierExtension> {
    const own = this.certificate.getExtension(x509.SubjectKeyIdentifierExtension);
    return own
      ? new x509.AuthorityKeyIdentifierExtension(own.keyId)
      : x509.AuthorityKeyIdentifierExtension.create(this.keys.publicKey);
  }

  private async issue(
    subject: x509.JsonName,
    usage: string | string[],
    altNames: x509.JsonGeneralName[],
  ): Promise<CertPair> {
    const keys = await newKeys();
    const extensions: x509.Extension[] = [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
      new x509.ExtendedKeyUsageExtension(typeof usage === 'string' ? [usage] : usage),
      await this.authorityKeyIdentifier(),
    ];
    if (altNames.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(altNames));
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: new x509.Name(subject),
      issuer: this.certificate.subjectName,
      notBefore: new Date(Date.now() - day),
      notAfter: new Date(Date.now() + 365 * day),
      signingAlgorithm: this.signing,
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
