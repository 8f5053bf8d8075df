/**
 * The VCDCluster's next step for its control-plane load balancer (NSX-T ALB), as a pure function.
 * Only called when the provider manages the endpoint: `loadBalancerConfigSpec.disabled` (the
 * user runs the endpoint) makes no load-balancer call at all (#666).
 *
 * 1. Names are deterministic (from namespace and name), so the pool and virtual service are found
 *    again after a lost status or `clusterctl move`, never made twice (#211): a create only when
 *    VCD shows none of that name and no task of ours runs.
 * 2. The VIP is the host the user gave in `spec.controlPlaneEndpoint` (as CAPVCD, a pre-registered
 *    VIP; VCD refuses one outside the gateway's ranges or in use), else taken from the edge
 *    gateway's free uplink addresses when the virtual service is made (VCD marks it used then),
 *    and recorded in `spec.controlPlaneEndpoint` after (which survives move); the virtual service
 *    that exists is the truth about the VIP. A gateway using IP Spaces has no uplink addresses of
 *    its own: a floating IP is reserved first, recorded, then used; the cluster releases the one
 *    it reserved once virtual service and pool are gone (a VIP the user gave is never released).
 * 3. Members are the control-plane VMs that are provisioned (powered on with an IP) and not being
 *    deleted; the pool's TCP health monitor keeps traffic off those not serving yet (#220). A
 *    deleting machine leaves the pool first: its VM powers off only once the pool has dropped it.
 * 4. Deletion waits for every machine to be gone, then removes virtual service, pool, and the
 *    cluster's vApp if it is left empty.
 */

/** The load balancer as VCD reports it. */
export interface LoadBalancerObservation {
  /** A task we recorded is still running. */
  taskRunning: boolean;
  pool?: { id: string; members: string[] };
  virtualService?: { id: string; vip: string; health: string };
  /** The VIP in spec: recorded by us, or asked for by the user (as CAPVCD reads a given host). */
  recordedVip?: string;
  /** spec.controlPlaneEndpoint has a host but no port: the VIP is recorded again with the port. */
  portMissing?: boolean;
  /** The edge gateway allocates from IP Spaces (only looked at while a VIP is still to be chosen). */
  vipFromIpSpace?: boolean;
  /** The floating IP the reservation task that just ended returned. */
  reservedVip?: string;
  /** Deleting: the floating IP this cluster reserved for its VIP is still held. */
  vipReservationHeld?: boolean;
  /** The cluster's vApp, when deleting: whether it is empty, deployed, busy. Undefined: none or not ours. */
  vapp?: { empty: boolean; deployed: boolean; busy: boolean };
}

/** What the cluster wants. */
export interface LoadBalancerIntent {
  /** IPs of provisioned control-plane machines, in any order. */
  members: string[];
  deleting: boolean;
  /** VCDMachines of the cluster that still exist. */
  machinesLeft: number;
  /**
   * Some control-plane machine has not reported yet (no status, as after `clusterctl move`):
   * members are only added then, never removed, so a serving control plane stays in the pool.
   */
  unsettled?: boolean;
}

export type ClusterStep =
  | { kind: 'WaitForTask' }
  | { kind: 'CreatePool' }
  | { kind: 'ReserveVIP' }
  | { kind: 'ReleaseVIP' }
  | { kind: 'CreateVirtualService'; vip?: string }
  | { kind: 'RecordVIP'; vip: string; reserved?: boolean }
  | { kind: 'SetMembers'; members: string[] }
  | { kind: 'Available'; vip: string; health: string }
  | { kind: 'WaitForMachines'; left: number }
  | { kind: 'DeleteVirtualService' }
  | { kind: 'DeletePool' }
  | { kind: 'UndeployVApp' }
  | { kind: 'DeleteVApp' }
  | { kind: 'WaitForVApp' }
  | { kind: 'Deleted' };

/** Steps that write to VCD (each returns a task). */
export const CLUSTER_WRITES = new Set<ClusterStep['kind']>([
  'CreatePool',
  'ReserveVIP',
  'CreateVirtualService',
  'SetMembers',
  'DeleteVirtualService',
  'DeletePool',
  'ReleaseVIP',
  'UndeployVApp',
  'DeleteVApp',
]);

const sameSet = (a: string[], b: string[]) =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** The load balancer's next step. Pure. */
export function decideLoadBalancer(intent: LoadBalancerIntent, seen: LoadBalancerObservation): ClusterStep {
  if (seen.taskRunning) return { kind: 'WaitForTask' };
  if (intent.deleting) {
    if (intent.machinesLeft > 0) return { kind: 'WaitForMachines', left: intent.machinesLeft };
    if (seen.virtualService) return { kind: 'DeleteVirtualService' };
    if (seen.pool) return { kind: 'DeletePool' };
    if (seen.vipReservationHeld) return { kind: 'ReleaseVIP' };
    if (seen.vapp?.empty) {
      if (seen.vapp.busy) return { kind: 'WaitForVApp' };
      return seen.vapp.deployed ? { kind: 'UndeployVApp' } : { kind: 'DeleteVApp' };
    }
    return { kind: 'Deleted' };
  }
  if (!seen.pool) return { kind: 'CreatePool' };
  const vs = seen.virtualService;
  if (!vs) {
    if (seen.recordedVip) return { kind: 'CreateVirtualService', vip: seen.recordedVip };
    if (seen.vipFromIpSpace)
      return seen.reservedVip
        ? { kind: 'RecordVIP', vip: seen.reservedVip, reserved: true }
        : { kind: 'ReserveVIP' };
    return { kind: 'CreateVirtualService' };
  }
  const vip = vs.vip;
  if (seen.recordedVip !== vip || seen.portMissing) return { kind: 'RecordVIP', vip };
  const wanted = intent.unsettled ? [...seen.pool.members, ...intent.members] : intent.members;
  const members = [...new Set(wanted)].sort();
  if (!sameSet(seen.pool.members, members)) return { kind: 'SetMembers', members };
  return { kind: 'Available', vip, health: vs.health };
}
