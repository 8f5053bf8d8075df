/**
 * The VDC and network a cluster's own objects go by (its load balancer's edge gateway, its
 * vApp, the hand-off): `spec.ovdc` and `spec.ovdcNetwork`, or, when a multi-zone cluster leaves
 * them empty as CAPVCD's do, its first zone's, which is where CAPVCD puts the load balancer.
 */
import type { VCDCluster } from './api/types.js';

/** A VDC and a network of it, by name. */
export interface ClusterHome {
  ovdc: string;
  ovdcNetwork: string;
}

/** The cluster's own VDC and network (see above). Pure. */
export function clusterHome(vcdCluster: VCDCluster): ClusterHome {
  const { ovdc, ovdcNetwork } = vcdCluster.spec;
  const first = vcdCluster.spec.multiZoneSpec?.zones?.[0];
  if (ovdc || !first) return { ovdc, ovdcNetwork };
  return { ovdc: first.ovdc, ovdcNetwork: ovdcNetwork || first.ovdcNetworkName };
}
