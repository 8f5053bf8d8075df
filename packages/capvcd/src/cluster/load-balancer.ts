/**
 * The VCDCluster's VCD side: what it observes (pool, virtual service, the vApp when deleting) and
 * the one write per decided step. Lookups that do not move (edge gateway, service engine group)
 * are cached on the session.
 */
import type { VCDCluster } from '../api/types.js';
import { clusterHome } from '../cluster-home.js';
import type { ClusterStep, LoadBalancerObservation } from '../decide/cluster.js';
import { observeVApp } from '../machine/inputs.js';
import { vappMarker, vappNameFor } from '../naming.js';
import {
  createPool,
  createVirtualService,
  deletePool,
  deleteVirtualService,
  edgeGatewayOf,
  findPool,
  findVirtualService,
  freeUplinkAddress,
  getPool,
  type PoolRecord,
  serviceEngineGroupOf,
  setPoolMembers,
} from '../vcd/alb.js';
import type { Task } from '../vcd/client.js';
import type { Connection } from '../vcd/connections.js';
import { VcdError } from '../vcd/errors.js';
import {
  type FloatingIp,
  findFloatingIp,
  firstIpSpace,
  ipSpacesOf,
  releaseFloatingIp,
  reserveFloatingIp,
  usesIpSpaces,
} from '../vcd/ip-space.js';
import { remove, undeploy, type VAppRecord } from '../vcd/vapp.js';

/** What observing found, beyond what the decision reads (for the writes). */
export interface ClusterWorld {
  seen: LoadBalancerObservation;
  pool?: PoolRecord;
  vsId?: string;
  vapp?: VAppRecord;
  /** Deleting: the floating IP reserved for the VIP, to release. */
  vipReservation?: FloatingIp;
}

/** What the reconcile knows beyond VCD: the VIP in spec, whether we chose it, a task's result. */
export interface ObserveOptions {
  managed: boolean;
  deleting: boolean;
  recordedVip?: string;
  /** The VIP in spec was recorded by us (not the user's): ours to release. */
  vipIsOurs?: boolean;
  /** The floating IP the reservation task that just ended returned. */
  reservedVip?: string;
  poolId?: string;
}

const gatewayOf = (c: Connection, network: string) =>
  c.directory.once(`gateway:${network}`, () => edgeGatewayOf(c.vcd, network));

/** Reads the load balancer (when managed) and, when deleting, the cluster's vApp. */
export async function observeCluster(
  connection: Connection,
  vcdCluster: VCDCluster,
  lbName: string,
  opts: ObserveOptions,
): Promise<ClusterWorld> {
  const world: ClusterWorld = {
    seen: { taskRunning: false, ...(opts.recordedVip ? { recordedVip: opts.recordedVip } : {}) },
  };
  if (opts.managed) await observeLoadBalancer(connection, vcdCluster, lbName, opts, world);
  if (opts.deleting) {
    const name = vcdCluster.metadata.name as string;
    const marker = vappMarker(vcdCluster.metadata.namespace as string, name);
    // A CAPVCD cluster taken over: its vApp is ours to remove too.
    const vapp = await observeVApp(connection, clusterHome(vcdCluster).ovdc, vappNameFor(name), {
      vcdCluster,
      markers: { vappMarker: marker, vmMarker: '' },
    });
    if (vapp && vapp.description === marker) {
      world.vapp = vapp;
      world.seen.vapp = { empty: vapp.vms.length === 0, deployed: vapp.deployed, busy: vapp.busy };
    }
  }
  return world;
}

/**
 * Pool and virtual service by name; on a gateway using IP Spaces, the floating IP to use (while
 * no VIP is chosen) or to release (deleting, once both are gone, if we reserved it).
 */
async function observeLoadBalancer(
  connection: Connection,
  vcdCluster: VCDCluster,
  lbName: string,
  opts: ObserveOptions,
  world: ClusterWorld,
): Promise<void> {
  const gw = await gatewayOf(connection, clusterHome(vcdCluster).ovdcNetwork);
  let pool: PoolRecord | undefined;
  if (opts.poolId) pool = await getPool(connection.vcd, opts.poolId).catch(notFoundAsUndefined);
  pool ??= await findPool(connection.vcd, gw.id, lbName);
  const vs = await findVirtualService(connection.vcd, gw.id, lbName);
  if (pool) {
    world.pool = pool;
    world.seen.pool = { id: pool.id, members: pool.members };
  }
  if (vs) {
    world.vsId = vs.id;
    world.seen.virtualService = vs;
  }
  const choosing = !opts.deleting && !vs && !opts.recordedVip;
  const releasing = opts.deleting && !vs && !pool && !!opts.recordedVip && opts.vipIsOurs === true;
  if (choosing || releasing) await observeFloatingIp(connection, gw.id, opts, world);
}

/** The IP Space side of the VIP: looked at only while one is chosen or released (no call otherwise). */
async function observeFloatingIp(
  connection: Connection,
  gateway: string,
  opts: ObserveOptions,
  world: ClusterWorld,
): Promise<void> {
  if (!(await gatewayUsesIpSpaces(connection, gateway))) return;
  if (!opts.deleting) {
    world.seen.vipFromIpSpace = true;
    if (opts.reservedVip) world.seen.reservedVip = opts.reservedVip;
    return;
  }
  const spaces = await ipSpacesOf(connection.vcd, gateway);
  const held = await findFloatingIp(connection.vcd, spaces, opts.recordedVip as string);
  if (held) {
    world.vipReservation = held;
    world.seen.vipReservationHeld = true;
  }
}

const gatewayUsesIpSpaces = (c: Connection, gateway: string) =>
  c.directory.once(`ipSpaces:${gateway}`, () => usesIpSpaces(c.vcd, gateway));

function notFoundAsUndefined(err: unknown): undefined {
  if (err instanceof VcdError && err.notFound) return undefined;
  throw err;
}

/** The step's write; undefined for steps that make none. @throws VcdError NO_FREE_IP when the gateway has no address left. */
export async function actCluster(
  connection: Connection,
  vcdCluster: VCDCluster,
  lbName: string,
  port: number,
  step: ClusterStep,
  world: ClusterWorld,
): Promise<Task | undefined> {
  const { vcd } = connection;
  switch (step.kind) {
    case 'CreatePool': {
      const gw = await gatewayOf(connection, clusterHome(vcdCluster).ovdcNetwork);
      return createPool(vcd, gw, lbName, port);
    }
    case 'ReserveVIP': {
      const gw = await gatewayOf(connection, clusterHome(vcdCluster).ovdcNetwork);
      return reserveFloatingIp(vcd, firstIpSpace(await ipSpacesOf(vcd, gw.id), gw.name ?? gw.id));
    }
    case 'ReleaseVIP':
      return releaseFloatingIp(vcd, world.vipReservation as FloatingIp);
    case 'CreateVirtualService': {
      const gw = await gatewayOf(connection, clusterHome(vcdCluster).ovdcNetwork);
      const seg = await connection.directory.once(`seg:${gw.id}`, () => serviceEngineGroupOf(vcd, gw.id));
      const vip =
        step.vip ??
        (await freeUplinkAddress(vcd, gw.id, vcdCluster.spec.loadBalancerConfigSpec?.vipSubnet || undefined));
      if (!vip)
        throw new VcdError(
          400,
          'NO_FREE_IP',
          `edge gateway ${gw.name ?? gw.id} has no free address for the VIP`,
        );
      const pool = world.pool as PoolRecord;
      return createVirtualService(vcd, {
        name: lbName,
        gateway: gw,
        seg,
        pool: { id: pool.id, name: pool.name },
        vip,
        port,
      }).catch((err: unknown) => {
        // A VIP from spec that VCD refuses (outside the gateway's ranges, in use): say which.
        if (!(step.vip && err instanceof VcdError && err.status === 400)) throw err;
        throw new VcdError(
          400,
          'VIP_REFUSED',
          `VCD refused the VIP ${vip} of spec.controlPlaneEndpoint.host: ${err.message}`,
        );
      });
    }
    case 'SetMembers':
      return setPoolMembers(vcd, world.pool as PoolRecord, step.members, port);
    case 'DeleteVirtualService':
      return deleteVirtualService(vcd, world.vsId as string);
    case 'DeletePool':
      return deletePool(vcd, world.pool?.id as string);
    case 'UndeployVApp':
      return undeploy(vcd, (world.vapp as VAppRecord).href);
    case 'DeleteVApp': {
      const task = await remove(vcd, (world.vapp as VAppRecord).href);
      connection.directory.rememberVApp(
        clusterHome(vcdCluster).ovdc,
        vappNameFor(vcdCluster.metadata.name as string),
        undefined,
      );
      return task;
    }
    default:
      return undefined;
  }
}
