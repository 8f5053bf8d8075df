/**
 * Taking over a cluster CAPVCD made (docs/capvcd-migration.md). The user opts in per VCDCluster
 * with {@link ADOPT_CAPVCD_ANNOTATION}, whose value is CAPVCD's infra ID (`status.infraId`):
 * the load balancer is then looked up by CAPVCD's names, and the cluster's vApp is taken as ours
 * only if its `CapvcdInfraId` metadata holds that ID. Inside such a vApp, a machine's VM of the
 * name CAPVCD gave it (the Machine's name or `vmNamingTemplate`, as ours) is taken as the
 * machine's, so no VM is made again. Nothing is written to VCD for the takeover itself.
 *
 * Why an annotation carrying the ID, rather than `status.infraId` alone: status is lost in a
 * backup restore or `clusterctl move`, and a status left over would make a takeover nobody asked
 * for; the ID in the annotation says which CAPVCD cluster is meant, and VCD's metadata must agree.
 */
import { CONTROL_PLANE_NAME_LABEL, DEPLOYMENT_NAME_LABEL } from './api/keys.js';
import type { VCDCluster } from './api/types.js';
import type { ObservedVApp, ObservedVM } from './decide/machine.js';
import { loadBalancerName, MARKER_PREFIX } from './naming.js';
import type { VcdClient } from './vcd/client.js';
import type { Connection } from './vcd/connections.js';
import { VcdError } from './vcd/errors.js';
import { childOf, textOf } from './vcd/xml.js';

/** On a VCDCluster: take over the objects CAPVCD made for it; the value is CAPVCD's infra ID. */
export const ADOPT_CAPVCD_ANNOTATION = 'capvcd.capstan.dev/adopt-capvcd-infra-id';

/** The vApp metadata key CAPVCD writes its infra ID under. */
export const CAPVCD_INFRA_ID_KEY = 'CapvcdInfraId';

/** CAPVCD's infra ID this VCDCluster takes over, or undefined when it takes over nothing. */
export function adoptedInfraId(vcdCluster: VCDCluster): string | undefined {
  return vcdCluster.metadata.annotations?.[ADOPT_CAPVCD_ANNOTATION]?.trim() || undefined;
}

/** CAPVCD's name of a cluster's virtual service and pool (its name prefix, then the port suffix). */
export const capvcdLoadBalancerName = (vcdCluster: string, infraId: string): string =>
  `${vcdCluster}-${infraId}-tcp`;

/** The load balancer's pool and virtual service name: CAPVCD's when taking over, else ours. */
export function loadBalancerNameOf(vcdCluster: VCDCluster): string {
  const name = vcdCluster.metadata.name as string;
  const infraId = adoptedInfraId(vcdCluster);
  return infraId
    ? capvcdLoadBalancerName(name, infraId)
    : loadBalancerName(vcdCluster.metadata.namespace as string, name);
}

/**
 * The VM name CAPVCD gave a machine without `vmNamingTemplate`: the Machine's name (ours is the
 * VCDMachine's; they differ where an older Cluster API named infrastructure machines apart), or,
 * once the Machine is gone (deleting), the name recorded in status. Undefined where our rule holds:
 * no takeover, or a template (executed the same way by both).
 */
export function capvcdVmName(
  vcdCluster: VCDCluster,
  template: string | undefined,
  machineName: string | undefined,
  recorded: string | undefined,
): string | undefined {
  if (!adoptedInfraId(vcdCluster) || template) return undefined;
  return machineName ?? recorded;
}

/** Whether the cluster taken over is one of CAPVCD's DC-group (multi-zone) clusters. */
export const takesOverDcGroup = (vcdCluster: VCDCluster): boolean =>
  adoptedInfraId(vcdCluster) !== undefined && vcdCluster.spec.multiZoneSpec?.zoneTopology === 'DCGroup';

/**
 * CAPVCD's vApp of a machine of a DC-group cluster: one per zone and node pool, named
 * `<VCDCluster>_<UUID of the zone's VDC>_<KubeadmControlPlane or MachineDeployment name>`, the pool
 * read from the Machine's labels (the control plane's first, as CAPVCD reads them). Pure.
 * @returns the name, or why there is none.
 */
export function capvcdZoneVAppName(
  vcdCluster: string,
  vdcUrn: string,
  labels: Record<string, string> | undefined,
): { name: string } | { error: string } {
  const parts = vdcUrn.split(':');
  if (parts.length !== 4) return { error: `VDC id ${vdcUrn} is not a URN urn:vcloud:vdc:<uuid>` };
  const pool = labels?.[CONTROL_PLANE_NAME_LABEL] || labels?.[DEPLOYMENT_NAME_LABEL];
  if (!pool)
    return {
      error: `the machine has neither ${CONTROL_PLANE_NAME_LABEL} nor ${DEPLOYMENT_NAME_LABEL}: CAPVCD's vApp of a DC-group cluster is named after its node pool`,
    };
  return { name: `${vcdCluster}_${parts[3]}_${pool}` };
}

/** The markers and the VM name a takeover view needs. */
export interface TakeoverMarkers {
  vappMarker: string;
  vmMarker: string;
  /** The machine's VM name (undefined for the cluster's own view: no VM is taken). */
  vmName?: string;
}

/**
 * The vApp as the decisions should see it: when `infraIdOnVApp` (its CapvcdInfraId metadata)
 * equals the infra ID taken over, it carries our vApp marker, and the machine's VM of its name
 * our VM marker unless another of our machines' marker is on it. Anything else is returned as is,
 * so a vApp or VM that is not the one taken over stays "not ours". Pure.
 */
export function takenOver<V extends ObservedVM, A extends ObservedVApp & { vms: V[] }>(
  vapp: A,
  markers: TakeoverMarkers,
  infraId: string | undefined,
  infraIdOnVApp: string | undefined,
): A {
  if (!infraId || infraIdOnVApp !== infraId || vapp.description === markers.vappMarker) return vapp;
  if (vapp.description.startsWith(MARKER_PREFIX)) return vapp; // another of our clusters'
  const vms = vapp.vms.map((vm) =>
    vm.name === markers.vmName && !vm.description.startsWith(MARKER_PREFIX)
      ? { ...vm, description: markers.vmMarker }
      : vm,
  );
  return { ...vapp, description: markers.vappMarker, vms };
}

/**
 * The vApp seen through a takeover: its CapvcdInfraId metadata is read only when the VCDCluster
 * takes one over and the vApp does not carry our marker already, and once per vApp for the
 * session (nothing is written back, and CAPVCD's infra ID of a vApp does not change).
 */
export async function viewTakenOver<
  V extends ObservedVM,
  A extends ObservedVApp & { vms: V[]; href: string },
>(connection: Connection, vcdCluster: VCDCluster, vapp: A, markers: TakeoverMarkers): Promise<A> {
  const infraId = adoptedInfraId(vcdCluster);
  if (!infraId || vapp.description === markers.vappMarker) return vapp;
  const onVApp = await connection.directory.once(`infraId:${vapp.href}`, () =>
    readInfraId(connection.vcd, vapp.href),
  );
  return takenOver(vapp, markers, infraId, onVApp);
}

/** A vApp's CapvcdInfraId metadata; undefined when it has none (VCD answers 403 then). */
export async function readInfraId(vcd: VcdClient, vappHref: string): Promise<string | undefined> {
  try {
    const node = await vcd.xml('GET', `${vcd.pathOf(vappHref)}/metadata/${CAPVCD_INFRA_ID_KEY}`);
    const value = childOf(node, 'MetadataValue') ?? node;
    return textOf(childOf(childOf(value, 'TypedValue'), 'Value'));
  } catch (err) {
    if (err instanceof VcdError && err.notFound) return undefined;
    throw err;
  }
}
