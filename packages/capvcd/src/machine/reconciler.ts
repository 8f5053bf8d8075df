/**
 * The VCDMachine reconciler: read (Machine, Cluster, VCDCluster, bootstrap Secret, the recorded
 * task, the cluster's vApp) → decide ({@link decideMachine}) → write (one VCD call, its task
 * recorded; status and providerID). It never waits for a task, and makes no VCD call while paused,
 * before the cluster's infrastructure is provisioned, or before bootstrap data exists.
 */
import {
  type Client,
  type Clock,
  type EventRecorder,
  jittered,
  type Logger,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
  removeFinalizer,
  requestKey,
} from '@capstan/runtime';
import { type Machine, MachineType } from '../api/capi.js';
import {
  CLUSTER_NAME_LABEL,
  Conditions,
  MACHINE_FINALIZER,
  MANAGED_BY_LABEL,
  providerIdFor,
} from '../api/keys.js';
import {
  type VCDCluster,
  VCDClusterType,
  type VCDMachine,
  type VCDMachineStatus,
  VCDMachineType,
} from '../api/types.js';
import { specHonouredCondition, unactedMachineFields } from '../compat.js';
import { decideMachine, type MachineStep, releasableWithoutVcd } from '../decide/machine.js';
import { failureReason } from '../failure-reason.js';
import type { CapvcdMetrics } from '../metrics.js';
import { vappMarker, vappNameFor, vmMarker, vmNameFor, vmUrn } from '../naming.js';
import { capiOwner, connectionFor, gate, getCluster, getOrUndefined, NotReady } from '../scope.js';
import { condition, writeStatus } from '../status.js';
import { RecordedTasks, type TaskPolling, type TaskTurn } from '../tasks.js';
import type { Connection, Connections } from '../vcd/connections.js';
import { type ErrorBackoffCurve, VcdErrorBackoff } from '../vcd/error-backoff.js';
import { VcdError } from '../vcd/errors.js';
import { type VmRecord } from '../vcd/vapp.js';
import { act } from './act.js';
import { guestinfoOf, observeVApp, readBootstrap } from './inputs.js';
import { notReady } from './not-ready.js';
import { type Placement, placementOf } from './placement.js';
import { VAppLocks } from './vapp-locks.js';
import { VAppTurns } from './vapp-turns.js';

/** What the reconciler works with. */
export interface MachineReconcilerDeps {
  client: Client;
  connections: Connections;
  events: EventRecorder;
  metrics: CapvcdMetrics;
  logger?: Logger;
  polling?: TaskPolling;
  /** How long to wait for a VM's IP, VCD's busy entities and similar (default 5 s). */
  recheckMs?: number;
  /** Task start times and ages are read from it (the manager's clock). */
  clock: Clock;
  /** The wait after VCD errors (see {@link VcdErrorBackoff}). */
  vcdErrorBackoff?: ErrorBackoffCurve;
}

/** What one turn on the cluster's vApp works with. */
interface VAppTurn {
  vcdMachine: VCDMachine;
  machine: Machine | undefined;
  vcdCluster: VCDCluster;
  status: VCDMachineStatus;
  deleting: boolean;
  log: Logger;
  connection: Connection;
  placement: Placement;
  vmName: string;
  vappName: string;
  /** VAppTurns' and VAppLocks' key of the vApp, and the machine's. */
  vappKey: string;
  machineKey: string;
}

const WAITING_MS = 3_000;
/** A look left out: a task another machine started runs on the vApp (see VAppLocks). */
const LOCKED: MachineStep = {
  kind: 'WaitForVCD',
  reason: 'VAppBusy',
  message: 'a task this provider started on the vApp still runs',
};

/** Reconciles VCDMachines. */
export class VCDMachineReconciler implements Reconciler {
  private readonly tasks: RecordedTasks;
  private readonly vappTurns = new VAppTurns();
  private readonly vappLocks: VAppLocks;
  private readonly backoff: VcdErrorBackoff;

  constructor(private readonly deps: MachineReconcilerDeps) {
    this.tasks = new RecordedTasks(deps);
    this.backoff = new VcdErrorBackoff(deps.clock, deps.vcdErrorBackoff);
    this.vappLocks = new VAppLocks(deps.clock);
  }

  async reconcile(request: Request, { log }: ReconcileContext): Promise<Result | undefined> {
    const { client } = this.deps;
    const vcdMachine = await getOrUndefined(() => client.get(VCDMachineType, request));
    if (!vcdMachine || vcdMachine.metadata.labels?.[MANAGED_BY_LABEL] !== undefined) return undefined;
    const machineName = capiOwner(vcdMachine, 'Machine');
    if (!machineName) return undefined; // CAPI has not adopted it yet; its owner reference brings us back
    const namespace = request.namespace as string;
    const machine = await getOrUndefined(() => client.get(MachineType, { namespace, name: machineName }));
    const clusterName = vcdMachine.metadata.labels?.[CLUSTER_NAME_LABEL] ?? machine?.spec?.clusterName;
    const cluster = clusterName ? await getCluster(client, namespace, clusterName) : undefined;
    const status: VCDMachineStatus = structuredClone(vcdMachine.status ?? {});

    const stop = await gate(
      client,
      VCDMachineType,
      vcdMachine,
      status,
      cluster,
      MACHINE_FINALIZER,
      this.deps.clock,
    );
    if (stop) return stop.result;
    specHonouredCondition(status, vcdMachine, unactedMachineFields(vcdMachine.spec));
    // Backing off after a VCD error: an event that brings the object early does not call VCD.
    const backingOff = this.backoff.remaining(requestKey(request));
    if (backingOff > 0) return { requeueAfter: backingOff };
    const deleting = vcdMachine.metadata.deletionTimestamp !== undefined;

    const vcdClusterName = cluster?.spec?.infrastructureRef?.name ?? clusterName;
    const vcdCluster = vcdClusterName
      ? await getOrUndefined(() => client.get(VCDClusterType, { namespace, name: vcdClusterName }))
      : undefined;
    try {
      if (!deleting) {
        if (!cluster || !machine)
          throw new NotReady('WaitingForCluster', `Cluster ${clusterName ?? '?'} not found`);
        if (!cluster.status?.initialization?.infrastructureProvisioned) {
          throw new NotReady(
            'WaitingForClusterInfrastructure',
            'the Cluster’s infrastructure is not provisioned yet',
          );
        }
        if (!machine.spec?.bootstrap?.dataSecretName) {
          throw new NotReady('WaitingForBootstrapData', 'the Machine has no bootstrap data yet');
        }
      }
      if (!vcdCluster)
        throw new NotReady('WaitingForVCDCluster', `VCDCluster ${vcdClusterName ?? '?'} not found`);
      const result = await this.advance(
        vcdMachine,
        machine,
        vcdCluster,
        clusterName as string,
        status,
        deleting,
        log,
      );
      this.backoff.succeeded(requestKey(request));
      return result;
    } catch (err) {
      return this.report(vcdMachine, status, err, deleting, log);
    }
  }

  /** Reads VCD, decides, makes the one write, and records it. */
  private async advance(
    vcdMachine: VCDMachine,
    machine: Machine | undefined,
    vcdCluster: VCDCluster,
    clusterName: string,
    status: VCDMachineStatus,
    deleting: boolean,
    log: Logger,
  ): Promise<Result | undefined> {
    const { client, connections } = this.deps;
    // Provisioned and spec.providerID kept: nothing to ask VCD until deletion.
    if (!deleting && status.initialization?.provisioned && vcdMachine.spec.providerID) return undefined;
    const named = vmNameFor(vcdMachine.spec.vmNamingTemplate, {
      cluster: clusterName,
      ...(machine ? { machine } : {}),
      vcdMachine,
    });
    if ('error' in named) return this.unplaceable(vcdMachine, status, deleting, 'InvalidVMName', named.error);
    const placement = placementOf(vcdCluster, vcdMachine, machine);
    if ('error' in placement)
      return this.unplaceable(vcdMachine, status, deleting, 'InvalidFailureDomain', placement.error);
    const connection = await connectionFor(client, connections, vcdCluster);

    const vappName = vappNameFor(vcdCluster.metadata.name as string);
    const vappKey = `${vcdCluster.metadata.uid}/${placement.ovdc}/${vappName}`;
    const machineKey = requestKey(keyOf(vcdMachine));
    let turn: TaskTurn;
    try {
      turn = await this.tasks.turn(connection.vcd, VCDMachineType, vcdMachine, status);
    } finally {
      if (!status.task) this.vappLocks.release(vappKey, machineKey); // ended, failed or none
    }
    if (turn.running) {
      this.vappLocks.hold(vappKey, machineKey, status.task?.operation ?? '', turn.pollAfterMs);
      condition(
        status,
        vcdMachine,
        Conditions.VMProvisioned,
        false,
        status.task?.operation ?? 'Working',
        'waiting for the VCD task',
      );
      await writeStatus(client, VCDMachineType, vcdMachine, status, this.deps.clock);
      return { requeueAfter: turn.pollAfterMs };
    }

    // Read → decide → write in turn with the cluster's other machines (see VAppTurns).
    const { step, vm } = await this.vappTurns.take(vappKey, () =>
      this.onVApp({
        vcdMachine,
        machine,
        vcdCluster,
        status,
        deleting,
        log,
        connection,
        placement,
        vmName: named.name,
        vappName,
        vappKey,
        machineKey,
      }),
    );
    if (step.kind === 'Deleted' || step.kind === 'Provisioned') this.vappLocks.forget(vappKey, machineKey);
    return this.settle(vcdMachine, status, step, vm, deleting, placement.zone);
  }

  /** One turn on the vApp: look (unless only "busy" could be seen), decide, write, record. */
  private async onVApp(t: VAppTurn): Promise<{ step: MachineStep; vm: VmRecord | undefined }> {
    const { vcdMachine, machine, vcdCluster, status, deleting, log, connection, placement } = t;
    const { vmName, vappName, vappKey, machineKey } = t;
    const namespace = vcdMachine.metadata.namespace as string;
    if (this.vappLocks.mustWait(vappKey, machineKey, deleting)) return { step: LOCKED, vm: undefined };
    const vapp = await observeVApp(connection, placement.ovdc, vappName);
    const vm = vapp?.vms.find((v) => v.name === vmName);
    const secret = deleting ? undefined : await readBootstrap(this.deps.client, namespace, machine);
    const guestinfo =
      secret && vm
        ? await guestinfoOf(connection, secret, vm, vmName, placement.networks[0] as string, placement.ovdc)
        : {};
    const poolMembers = vcdCluster.status?.loadBalancer?.members ?? [];
    const intent = {
      vmName,
      vappMarker: vappMarker(namespace, vcdCluster.metadata.name as string),
      vmMarker: vmMarker(namespace, vcdMachine.metadata.name as string),
      guestinfo,
      deleting,
      // Not when the whole cluster goes: its load balancer is deleted after its machines.
      inLoadBalancer:
        deleting &&
        !vcdCluster.metadata.deletionTimestamp &&
        vm?.ip !== undefined &&
        poolMembers.includes(vm.ip),
    };
    const step = decideMachine(intent, { taskRunning: false, ...(vapp ? { vapp } : {}) });
    this.vappLocks.decided(machineKey, step, deleting);
    status.vmName = vmName;
    const task = await act({
      step,
      connection,
      vcdCluster,
      vcdMachine,
      ovdc: placement.ovdc,
      networks: placement.networks,
      vmName,
      vappName,
      vappMarker: intent.vappMarker,
      vmMarker: intent.vmMarker,
      ...(vapp ? { vapp } : {}),
      ...(vm ? { vm } : {}),
      guestinfo,
    });
    if (task) {
      status.task = this.tasks.record(task, step.kind);
      this.vappLocks.hold(vappKey, machineKey, step.kind, this.tasks.polling.minMs);
      log.info({ step: step.kind, vm: vmName }, 'VCD task started');
      this.deps.events.record(VCDMachineType, vcdMachine, {
        type: 'Normal',
        reason: step.kind,
        action: step.kind,
        note: `VM ${vmName}`,
      });
    }
    return { step, vm };
  }

  /**
   * A machine whose VM cannot be named or placed: a condition says why (thrown to `report`). Once
   * deleted, one that never asked VCD for a VM is released, so deletion does not wait on a fix.
   */
  private async unplaceable(
    vcdMachine: VCDMachine,
    status: VCDMachineStatus,
    deleting: boolean,
    reason: string,
    message: string,
  ): Promise<undefined> {
    if (!deleting || !releasableWithoutVcd({ ...status, providerID: vcdMachine.spec.providerID }))
      throw new NotReady(reason, message);
    await removeFinalizer(this.deps.client, VCDMachineType, vcdMachine, MACHINE_FINALIZER);
    return undefined;
  }

  /** Writes what the step means for status (and providerID), and when to look again. */
  private async settle(
    vcdMachine: VCDMachine,
    status: VCDMachineStatus,
    step: MachineStep,
    vm: VmRecord | undefined,
    deleting: boolean,
    zone: string | undefined,
  ): Promise<Result | undefined> {
    const { client } = this.deps;
    if (step.kind === 'Deleted') {
      await removeFinalizer(client, VCDMachineType, vcdMachine, MACHINE_FINALIZER);
      return undefined;
    }
    if (step.kind === 'Provisioned' && vm) {
      const providerID = providerIdFor(vmUrn(vm));
      if (vcdMachine.spec.providerID !== providerID) {
        vcdMachine = await client.patch(VCDMachineType, keyOf(vcdMachine), 'merge', { spec: { providerID } });
      }
      status.initialization = { provisioned: true };
      status.ready = true;
      status.addresses = [
        { type: 'InternalIP', address: step.vm.ip as string },
        { type: 'Hostname', address: step.vm.name },
        { type: 'InternalDNS', address: step.vm.name },
      ];
      if (zone) status.failureDomain = zone;
      condition(
        status,
        vcdMachine,
        Conditions.VMProvisioned,
        true,
        'Provisioned',
        `VM ${step.vm.name} is on at ${step.vm.ip}`,
      );
      condition(status, vcdMachine, Conditions.Ready, true, 'Provisioned');
      await writeStatus(client, VCDMachineType, vcdMachine, status, this.deps.clock);
      return undefined;
    }
    const blocked = step.kind === 'Blocked' || step.kind === 'WaitForVCD';
    const reason = blocked ? step.reason : deleting ? 'Deleting' : step.kind;
    const message = blocked ? step.message : `next: ${step.kind}`;
    notReady(status, vcdMachine, deleting, reason, message);
    await writeStatus(client, VCDMachineType, vcdMachine, status, this.deps.clock);
    if (step.kind === 'Blocked') return { requeueAfter: 60_000 };
    return {
      // ±25 %, so machines waiting on one busy vApp do not all look again at once.
      requeueAfter: status.task ? this.tasks.polling.minMs : jittered(this.deps.recheckMs ?? WAITING_MS),
    };
  }

  /** Says in conditions why nothing more happened, and when to try again. */
  private async report(
    vcdMachine: VCDMachine,
    status: VCDMachineStatus,
    err: unknown,
    deleting: boolean,
    log: Logger,
  ): Promise<Result | undefined> {
    const reason = failureReason(err);
    if (reason === undefined) throw err;
    const message = (err as Error).message;
    if (err instanceof VcdError) log.warn({ code: err.minorErrorCode, status: err.status }, message);
    notReady(status, vcdMachine, deleting, reason, message);
    await writeStatus(this.deps.client, VCDMachineType, vcdMachine, status, this.deps.clock);
    // VCD faults back off per object; waiting for Kubernetes objects is woken by their watches.
    return err instanceof VcdError
      ? { requeueAfter: this.backoff.failed(requestKey(keyOf(vcdMachine))) }
      : { requeueAfter: 30_000 };
  }
}

const keyOf = (o: VCDMachine) => ({
  namespace: o.metadata.namespace as string,
  name: o.metadata.name as string,
});
