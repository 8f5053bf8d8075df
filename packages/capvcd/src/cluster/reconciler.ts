/**
 * The VCDCluster reconciler: waits for its owner Cluster; with `loadBalancerConfigSpec.disabled`
 * (the user runs the endpoint) it is provisioned at once and makes no VCD call (#666); otherwise it makes the NSX-T ALB load balancer
 * ({@link decideLoadBalancer}) one write per reconcile, never waiting for a task. Deletion waits
 * for the cluster's machines, then removes virtual service, pool and the emptied vApp.
 */
import {
  type Client,
  type Clock,
  type EventRecorder,
  type Logger,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
  removeFinalizer,
  requestKey,
} from '@capstan/runtime';
import {
  CLUSTER_FINALIZER,
  CLUSTER_NAME_LABEL,
  Conditions,
  DEFAULT_API_PORT,
  MANAGED_BY_LABEL,
  MANAGED_ENDPOINT_ANNOTATION,
  RESERVED_VIP_ANNOTATION,
} from '../api/keys.js';
import {
  type VCDCluster,
  type VCDClusterStatus,
  VCDClusterType,
  type VCDMachine,
  VCDMachineType,
} from '../api/types.js';
import { specHonouredCondition, unactedClusterFields } from '../compat.js';
import { CredentialsSecrets } from '../credentials-secrets.js';
import { CLUSTER_WRITES, type ClusterStep, decideLoadBalancer } from '../decide/cluster.js';
import { failureReason } from '../failure-reason.js';
import type { CapvcdMetrics } from '../metrics.js';
import { capiOwner, connectionFor, credentialsSecret, gate, getCluster, getOrUndefined } from '../scope.js';
import { condition, writeStatus, writeStatusKeepingTask } from '../status.js';
import { loadBalancerNameOf } from '../takeover.js';
import { RecordedTasks, type TaskPolling } from '../tasks.js';
import type { Connection, Connections } from '../vcd/connections.js';
import { type ErrorBackoffCurve, VcdErrorBackoff } from '../vcd/error-backoff.js';
import { VcdError } from '../vcd/errors.js';
import { reservedAddress } from '../vcd/ip-space.js';
import { affinityInPlay } from './affinity.js';
import { affinityTurn, isAffinityFault } from './affinity-turn.js';
import { controlPlaneMembers } from './control-plane.js';
import { claimCredentials, releaseCredentials } from './credentials-claim.js';
import { handOff } from './hand-off.js';
import { actCluster, observeCluster } from './load-balancer.js';
import { tlsCondition } from './tls-condition.js';

/** Load-balancer steps after which the anti-affinity rules take their turn. */
const AFFINITY_AFTER = new Set<ClusterStep['kind']>([
  'Available',
  'WaitForMachines',
  'WaitForVApp',
  'Deleted',
]);

const IPV4 = /^((25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(25[0-5]|2[0-4]\d|1?\d?\d)$/;

export interface ClusterReconcilerDeps {
  client: Client;
  /** Where the credentials Secret is read (default: the API server, each time). */
  secrets?: CredentialsSecrets;
  connections: Connections;
  events: EventRecorder;
  metrics: CapvcdMetrics;
  polling?: TaskPolling;
  /** How often a ready load balancer's health and members are looked at again (default 60 s). */
  resyncMs?: number;
  /** Task start times and ages are read from it (the manager's clock). */
  clock: Clock;
  /** The wait after VCD errors (see {@link VcdErrorBackoff}). */
  vcdErrorBackoff?: ErrorBackoffCurve;
}

/** Reconciles VCDClusters. */
export class VCDClusterReconciler implements Reconciler {
  private readonly tasks: RecordedTasks;
  private readonly backoff: VcdErrorBackoff;
  private readonly secrets: CredentialsSecrets;

  constructor(private readonly deps: ClusterReconcilerDeps) {
    this.secrets = deps.secrets ?? new CredentialsSecrets(deps.client);
    this.tasks = new RecordedTasks(deps);
    this.backoff = new VcdErrorBackoff(deps.clock, deps.vcdErrorBackoff);
  }

  async reconcile(request: Request, { log }: ReconcileContext): Promise<Result | undefined> {
    const { client } = this.deps;
    const vcdCluster = await getOrUndefined(() => client.get(VCDClusterType, request));
    if (!vcdCluster || vcdCluster.metadata.labels?.[MANAGED_BY_LABEL] !== undefined) return undefined;
    const clusterName = capiOwner(vcdCluster, 'Cluster');
    if (!clusterName) return undefined; // the Cluster's owner reference brings us back
    const namespace = request.namespace as string;
    const cluster = await getCluster(client, namespace, clusterName);
    const status: VCDClusterStatus = structuredClone(vcdCluster.status ?? {});
    const stop = await gate(
      client,
      VCDClusterType,
      vcdCluster,
      status,
      cluster,
      CLUSTER_FINALIZER,
      this.deps.clock,
    );
    if (stop) return stop.result;
    specHonouredCondition(status, vcdCluster, unactedClusterFields(vcdCluster.spec));
    Object.assign(status, handOff(vcdCluster));
    // Backing off after a VCD error: an event that brings the object early does not call VCD.
    const backingOff = this.backoff.remaining(requestKey(request));
    if (backingOff > 0) return { requeueAfter: backingOff };
    const deleting = vcdCluster.metadata.deletionTimestamp !== undefined;
    const zones = vcdCluster.spec.multiZoneSpec?.zones ?? [];
    if (zones.length > 0) {
      status.failureDomains = zones.map((z) => ({
        name: z.name,
        controlPlane: z.controlPlaneZone === true,
        attributes: { ovdc: z.ovdc, ovdcNetwork: z.ovdcNetworkName },
      }));
    }
    // As CAPVCD: a host given is the VIP asked for; only `disabled` means the endpoint is the user's.
    const managed = vcdCluster.spec.loadBalancerConfigSpec?.disabled !== true;
    const host = vcdCluster.spec.controlPlaneEndpoint?.host;
    if (managed && host && !deleting && !IPV4.test(host))
      return this.refuse(
        vcdCluster,
        status,
        'EndpointNotAnIP',
        `controlPlaneEndpoint.host ${host} cannot be a load balancer's VIP (an IPv4 address is needed); set loadBalancerConfigSpec.disabled if you run this endpoint`,
      );
    let connection: Connection | undefined;
    try {
      // Refused credentials stop here, before anything is read from them or held.
      const secret = await credentialsSecret(this.secrets, vcdCluster);
      if (!deleting) await claimCredentials(client, vcdCluster, secret);
      connection = await connectionFor(this.secrets, this.deps.connections, vcdCluster, secret);
      tlsCondition(status, vcdCluster, connection.site);
      const result =
        !deleting && !managed
          ? await this.userEndpoint(vcdCluster, clusterName, status, connection)
          : await this.advance(vcdCluster, clusterName, status, { managed, deleting, connection }, log);
      this.backoff.succeeded(requestKey(request));
      return result;
    } catch (err) {
      const reason = failureReason(err);
      if (reason === undefined || !(err instanceof Error)) throw err;
      if (err instanceof VcdError) log.warn({ code: err.minorErrorCode, status: err.status }, err.message);
      if (connection) tlsCondition(status, vcdCluster, connection.site);
      // The rules' fault is theirs: the load balancer and the cluster work without them.
      if (isAffinityFault(err, vcdCluster.status?.task?.operation))
        condition(status, vcdCluster, Conditions.AntiAffinityRulesReady, false, reason, err.message);
      else {
        condition(status, vcdCluster, Conditions.LoadBalancerAvailable, false, reason, err.message);
        condition(status, vcdCluster, Conditions.Ready, false, deleting ? 'Deleting' : reason, err.message);
      }
      await writeStatus(client, VCDClusterType, vcdCluster, status, this.deps.clock);
      // VCD faults back off per object, never in a burst.
      return err instanceof VcdError
        ? { requeueAfter: this.backoff.failed(requestKey(request)) }
        : { requeueAfter: 30_000 };
    }
  }

  /** A spec the load balancer cannot be made from: said in the conditions, no VCD call. */
  private async refuse(
    vcdCluster: VCDCluster,
    status: VCDClusterStatus,
    reason: string,
    message: string,
  ): Promise<undefined> {
    condition(status, vcdCluster, Conditions.LoadBalancerAvailable, false, reason, message);
    condition(status, vcdCluster, Conditions.Ready, false, reason, message);
    await writeStatus(this.deps.client, VCDClusterType, vcdCluster, status, this.deps.clock);
    return undefined; // a spec change brings it back
  }

  /** The user runs the endpoint: provisioned, no load balancer; VCD is called only for anti-affinity. */
  private async userEndpoint(
    vcdCluster: VCDCluster,
    clusterName: string,
    status: VCDClusterStatus,
    connection: Connection,
  ): Promise<Result | undefined> {
    let resync: Result | undefined;
    // A recorded task is looked at until it ends, whatever the spec says now.
    if (affinityInPlay(vcdCluster) || vcdCluster.status?.task) {
      const turn = await this.tasks.turn(connection.vcd, VCDClusterType, vcdCluster, status);
      if (turn.running) {
        await writeStatus(this.deps.client, VCDClusterType, vcdCluster, status, this.deps.clock);
        return { requeueAfter: turn.pollAfterMs };
      }
      const wrote = await this.affinity(vcdCluster, clusterName, status, connection, turn.endedHref);
      if (wrote) return wrote;
      resync = { requeueAfter: this.deps.resyncMs ?? 60_000 };
    }
    status.initialization = { provisioned: true };
    status.ready = true;
    condition(
      status,
      vcdCluster,
      Conditions.LoadBalancerAvailable,
      true,
      'UserSuppliedEndpoint',
      'loadBalancerConfigSpec.disabled: no load balancer is made; spec.controlPlaneEndpoint is yours',
    );
    condition(status, vcdCluster, Conditions.Ready, true, 'Provisioned');
    await writeStatus(this.deps.client, VCDClusterType, vcdCluster, status, this.deps.clock);
    return resync;
  }

  /** The rules' turn (`cluster/affinity-turn.ts`); a Result when it wrote (the reconcile ends there). */
  private async affinity(
    vcdCluster: VCDCluster,
    clusterName: string,
    status: VCDClusterStatus,
    connection: Connection,
    endedHref: string | undefined,
    machines?: VCDMachine[],
  ): Promise<Result | undefined> {
    const deps = {
      ...this.deps,
      tasks: this.tasks,
      recordedMeanwhile: (c: VCDCluster, href: string | undefined) => this.recordedMeanwhile(c, href),
    };
    const turn = await affinityTurn(deps, connection, vcdCluster, clusterName, status, endedHref, machines);
    if (!turn.done) return undefined;
    await writeStatusKeepingTask(this.deps.client, VCDClusterType, vcdCluster, status, this.deps.clock);
    return turn.result;
  }

  /**
   * No VCD write is repeated (a second create, a second DELETE still going): look past the cache
   * for a task recorded meanwhile.
   */
  private async recordedMeanwhile(vcdCluster: VCDCluster, endedHref: string | undefined): Promise<boolean> {
    const fresh = await this.deps.client.get(VCDClusterType, keyOf(vcdCluster), { direct: true });
    return fresh.status?.task !== undefined && fresh.status.task.href !== endedHref;
  }

  private async advance(
    vcdCluster: VCDCluster,
    clusterName: string,
    status: VCDClusterStatus,
    { managed, deleting, connection }: { managed: boolean; deleting: boolean; connection: Connection },
    log: Logger,
  ): Promise<Result | undefined> {
    const { client, events } = this.deps;
    const namespace = vcdCluster.metadata.namespace as string;
    const turn = await this.tasks.turn(connection.vcd, VCDClusterType, vcdCluster, status);
    if (turn.running) {
      await writeStatus(client, VCDClusterType, vcdCluster, status, this.deps.clock);
      return { requeueAfter: turn.pollAfterMs };
    }
    const lbName = loadBalancerNameOf(vcdCluster); // CAPVCD's name for a cluster taken over
    const port = vcdCluster.spec.controlPlaneEndpoint?.port || DEFAULT_API_PORT;
    const recordedVip = vcdCluster.spec.controlPlaneEndpoint?.host || undefined;
    const reservedVip = turn.endedOperation === 'ReserveVIP' ? reservedAddress(turn.result) : undefined;
    const world = await observeCluster(connection, vcdCluster, lbName, {
      managed,
      deleting,
      ...(recordedVip ? { recordedVip, portMissing: !vcdCluster.spec.controlPlaneEndpoint?.port } : {}),
      ...(status.loadBalancer?.poolId ? { poolId: status.loadBalancer.poolId } : {}),
      vipIsOurs: !!recordedVip && vcdCluster.metadata.annotations?.[RESERVED_VIP_ANNOTATION] === recordedVip,
      ...(reservedVip ? { reservedVip } : {}),
    });
    tlsCondition(status, vcdCluster, connection.site);
    const machines = (
      await client.list(VCDMachineType, { namespace, labelSelector: `${CLUSTER_NAME_LABEL}=${clusterName}` })
    ).items;
    const cp = await controlPlaneMembers(client, namespace, clusterName, machines);
    const step = decideLoadBalancer(
      {
        members: deleting ? [] : cp.ips,
        unsettled: !deleting && cp.unsettled,
        deleting,
        machinesLeft: machines.length,
      },
      world.seen,
    );
    if (CLUSTER_WRITES.has(step.kind) && (await this.recordedMeanwhile(vcdCluster, turn.endedHref)))
      return { requeueAfter: this.tasks.polling.minMs };
    // The rules' turn once the load balancer has nothing to write (and before the cluster is gone).
    if (AFFINITY_AFTER.has(step.kind)) {
      const wrote = await this.affinity(
        vcdCluster,
        clusterName,
        status,
        connection,
        turn.endedHref,
        machines,
      );
      if (wrote) return wrote;
    }
    const task = await actCluster(connection, vcdCluster, lbName, port, step, world);
    if (task?.href) {
      status.task = this.tasks.record(task, step.kind);
      log.info({ step: step.kind }, 'VCD task started');
    }
    if (task)
      events.record(VCDClusterType, vcdCluster, {
        type: 'Normal',
        reason: step.kind,
        action: step.kind,
        note: lbName,
      });
    status.loadBalancer = managed
      ? {
          ...(world.seen.virtualService
            ? { vip: world.seen.virtualService.vip, virtualServiceId: world.seen.virtualService.id }
            : {}),
          ...(world.pool ? { poolId: world.pool.id, members: world.pool.members } : {}),
        }
      : undefined;
    if (!status.loadBalancer) delete status.loadBalancer;
    return this.settle(vcdCluster, status, step, task !== undefined);
  }

  private async settle(
    vcdCluster: VCDCluster,
    status: VCDClusterStatus,
    step: ClusterStep,
    wrote: boolean,
  ): Promise<Result | undefined> {
    const { client } = this.deps;
    if (step.kind === 'Deleted') {
      await writeStatus(client, VCDClusterType, vcdCluster, status, this.deps.clock);
      await releaseCredentials(client, vcdCluster);
      await removeFinalizer(client, VCDClusterType, vcdCluster, CLUSTER_FINALIZER);
      return undefined;
    }
    if (step.kind === 'RecordVIP') {
      const port = vcdCluster.spec.controlPlaneEndpoint?.port || DEFAULT_API_PORT;
      vcdCluster = await client.patch(VCDClusterType, keyOf(vcdCluster), 'merge', {
        metadata: {
          annotations: {
            [MANAGED_ENDPOINT_ANNOTATION]: 'true',
            ...(step.reserved ? { [RESERVED_VIP_ANNOTATION]: step.vip } : {}),
          },
        },
        spec: { controlPlaneEndpoint: { host: step.vip, port } },
      });
    }
    if (step.kind === 'Available') {
      status.initialization = { provisioned: true };
      status.ready = true;
      condition(
        status,
        vcdCluster,
        Conditions.LoadBalancerAvailable,
        true,
        'VirtualServiceReady',
        `VIP ${step.vip}, health ${step.health}`,
      );
      condition(status, vcdCluster, Conditions.Ready, true, 'Provisioned');
      await writeStatus(client, VCDClusterType, vcdCluster, status, this.deps.clock);
      return { requeueAfter: this.deps.resyncMs ?? 60_000 };
    }
    const reason =
      step.kind === 'WaitForMachines'
        ? 'WaitingForMachines'
        : vcdCluster.metadata.deletionTimestamp
          ? 'Deleting'
          : step.kind;
    const provisioned = status.initialization?.provisioned === true;
    condition(
      status,
      vcdCluster,
      Conditions.LoadBalancerAvailable,
      provisioned && !vcdCluster.metadata.deletionTimestamp,
      reason,
      `next: ${step.kind}`,
    );
    if (!provisioned || vcdCluster.metadata.deletionTimestamp)
      condition(status, vcdCluster, Conditions.Ready, false, reason, `next: ${step.kind}`);
    await writeStatus(client, VCDClusterType, vcdCluster, status, this.deps.clock);
    if (step.kind === 'RecordVIP' || (wrote && !status.task)) return { requeue: true };
    return { requeueAfter: status.task ? this.tasks.polling.minMs : 5_000 };
  }
}

const keyOf = (o: VCDCluster) => ({
  namespace: o.metadata.namespace as string,
  name: o.metadata.name as string,
});
