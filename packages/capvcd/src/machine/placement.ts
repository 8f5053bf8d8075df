/**
 * Where a machine's VM goes: the VDC and networks of its failure domain (Machine's, else the
 * VCDMachine's), or else the cluster's own VDC and network (its first zone's when its spec names none).
 */
import type { Machine } from '../api/capi.js';
import type { VCDCluster, VCDMachine } from '../api/types.js';
import { clusterHome } from '../cluster-home.js';
import { vappNameFor } from '../naming.js';
import { capvcdZoneVAppName, takesOverDcGroup } from '../takeover.js';
import type { Directory } from '../vcd/directory.js';

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
  if (!wanted) {
    const home = clusterHome(vcdCluster);
    return { ovdc: home.ovdc, networks: [home.ovdcNetwork, ...extra] };
  }
  const zone = zones.find((z) => z.name === wanted);
  if (!zone) {
    return {
      error: `failure domain ${wanted} is not a zone of VCDCluster ${vcdCluster.metadata.name} (zones: ${zones.map((z) => z.name).join(', ') || 'none'})`,
    };
  }
  return { ovdc: zone.ovdc, networks: [zone.ovdcNetworkName, ...extra], zone: zone.name };
}

/**
 * The vApp a machine's VM goes in, in its VDC: the cluster's (named after the VCDCluster), or,
 * in a DC-group cluster taken over from CAPVCD, CAPVCD's vApp of its zone and node pool.
 * `labels`: the Machine's (the VCDMachine's while the Machine is gone).
 */
export async function vappNameOf(
  directory: Directory,
  vcdCluster: VCDCluster,
  ovdc: string,
  labels: Record<string, string> | undefined,
): Promise<{ name: string } | { error: string }> {
  const name = vcdCluster.metadata.name as string;
  if (!takesOverDcGroup(vcdCluster)) return { name: vappNameFor(name) };
  return capvcdZoneVAppName(name, (await directory.vdc(ovdc)).id, labels);
}
