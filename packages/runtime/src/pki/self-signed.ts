/**
 * A serving certificate made at start for a server nobody issued one to (controller-runtime's
 * secure metrics without a certificate folder): a throw-away CA signs it, and the chain served
 * holds both, so a scraper that skips verification connects and one that pins the CA could.
 */
import { hostname } from 'node:os';
import { CertificateAuthority, type CertPair, LOOPBACK_HOSTS } from './certificate-authority.js';

/**
 * A self-signed serving pair for `commonName`, valid for the loopback names and this host's name
 * (a pod's name). The CA's key is dropped: nothing else is ever signed by it.
 */
export function selfSignedServing(
  commonName: string,
  hosts: readonly string[] = [...LOOPBACK_HOSTS, hostname()],
): CertPair {
  const ca = CertificateAuthority.create(`${commonName}-ca@${Math.floor(Date.now() / 1000)}`);
  const leaf = ca.issueServing(commonName, hosts);
  return { cert: leaf.cert + ca.certPem, key: leaf.key };
}
