/**
 * `TLSVerified` says how the last TLS handshake with the site went, not what the spec asks for: a
 * site whose certificate fails verification shows False with the TLS error even though
 * verification is on. Switched off, it is False whatever the handshake did; before any handshake
 * the condition is left as it is.
 */
import { Conditions } from '../api/keys.js';
import type { VCDCluster, VCDClusterStatus } from '../api/types.js';
import { condition } from '../status.js';
import type { Site } from '../vcd/site.js';

/** Sets TLSVerified on `status` from the spec and the site's last handshake. */
export function tlsCondition(status: VCDClusterStatus, vcdCluster: VCDCluster, site: Site): void {
  if (vcdCluster.spec.insecureSkipTLSVerify === true) {
    condition(
      status,
      vcdCluster,
      Conditions.TLSVerified,
      false,
      'InsecureSkipTLSVerify',
      'TLS verification of the VCD site is switched off: anyone on the path can read the credentials',
    );
    return;
  }
  const handshake = site.lastHandshake;
  if (!handshake) return;
  condition(
    status,
    vcdCluster,
    Conditions.TLSVerified,
    handshake.verified,
    handshake.verified ? 'Verified' : 'HandshakeFailed',
    handshake.verified
      ? `the last handshake with ${site.base.host} verified its certificate`
      : handshake.message,
  );
}
