/**
 * Where a machine's VM goes: the VDC and networks of its failure domain (Machine's, else the
 * VCDMachine's), or the VCDCluster's own VDC and network when it has no zones.
 */
import type { Machine } from '../api/capi.js';
import type { VCDCluster, VCDMachine } from '../api/types.js';

/** A VM's VDC, its networks (primary first), and the failure domain it is in. */
export interface Placement {
  ovdc: string;
  networks: string[];
  zone?: string;
}

export function placementOf(
  vcdCluster: VCDCluster,
  vcdMachine: VCDMachine,
  machine: Machine | undefined,
): Placement | { error: string } {
  // "" is none, as CAPVCD reads it.
  const wanted = machine?.spec?.failureDomain || vcdMachine.spec.failureDomain;
  const extra = vcdMachine.spec.extraOvdcNetworks ?? [];
  const zones = vcdCluster.spec.multiZoneSpec?.zones ?? [];
  if (!wanted) return { ovdc: vcdCluster.spec.ovdc, networks: [vcdCluster.spec.ovdcNetwork, ...extra] };
  const zone = zones.find((z) => z.name === wanted);
  if (!zone) {
    return {
      error: `failure domain ${wanted} is not a zone of VCDCluster ${vcdCluster.metadata.name} (zones: ${zones.map((z) => z.name).join(', ') || 'none'})`,
    };
  }
  return { ovdc: zone.ovdc, networks: [zone.ovdcNetworkName, ...extra], zone: zone.name };
}
