/**
 * A throw-away certificate authority and a server certificate signed by it, so the simulator serves
 * real HTTPS that clients verify (instead of turning verification off, as today's provider does).
 * The certificates come from the runtime's test PKI, the one the envtest control plane uses.
 */
import { CertificateAuthority, LOOPBACK_HOSTS } from '@capstan/runtime/testing';

/** PEM material for an HTTPS server and the CA that clients trust. */
export interface TlsMaterial {
  /** The CA certificate (PEM): give it to clients as their trust root. */
  caPem: string;
  /** The server certificate (PEM), signed by the CA. */
  certPem: string;
  /** The server's private key (PKCS#8 PEM). */
  keyPem: string;
}

/**
 * Generates a fresh CA and a server certificate for the given host names and IP addresses
 * (by default `localhost`, `127.0.0.1` and `::1`). ECDSA P-256, valid for five years.
 */
export function generateTls(hosts: readonly string[] = LOOPBACK_HOSTS): TlsMaterial {
  const ca = CertificateAuthority.create('capstan vcdsim CA');
  const serving = ca.issueServing(hosts[0] ?? 'localhost', hosts);
  return { caPem: ca.certPem, certPem: serving.cert, keyPem: serving.key };
}
