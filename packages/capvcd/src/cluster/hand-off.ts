/**
 * What the VCDCluster publishes in its status for the VCD cloud provider (CPI) and CSI driver of
 * the workload cluster: site, org, VDC, network, the vApp of its VMs and a cluster id. The id
 * carries CAPVCD's `NO_RDE_` prefix, which tells CPI and CSI there is no runtime defined entity to
 * update; it is made from namespace and name (neither may hold `_`), so it is unique, and the same
 * after `clusterctl move` and in the `cloud-provider` flavor's configuration.
 */
import type { VCDCluster } from '../api/types.js';
import { clusterHome } from '../cluster-home.js';
import { vappNameFor } from '../naming.js';

/** The prefix CPI and CSI read as "no runtime defined entity". */
export const NO_RDE_PREFIX = 'NO_RDE_';

/** The status fields of the hand-off. */
export interface HandOff {
  site: string;
  org: string;
  ovdc: string;
  ovdcNetwork: string;
  vappName: string;
  infraId: string;
}

/** The cluster id of a VCDCluster. Pure. */
export const infraIdFor = (namespace: string, name: string): string => `${NO_RDE_PREFIX}${namespace}_${name}`;

/** The hand-off of a VCDCluster, from its spec and name alone (no VCD call). Pure. */
export function handOff(vcdCluster: VCDCluster): HandOff {
  const name = vcdCluster.metadata.name as string;
  return {
    site: vcdCluster.spec.site,
    org: vcdCluster.spec.org,
    ...clusterHome(vcdCluster),
    vappName: vappNameFor(name),
    infraId: infraIdFor(vcdCluster.metadata.namespace as string, name),
  };
}
