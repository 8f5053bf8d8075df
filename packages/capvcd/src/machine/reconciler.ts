/**
 * The VCDMachine reconciler, shaped as CAPD's: a scope read once ({@link machineScope}), then
 * `reconcileNormal` or `reconcileDelete`, each read (the recorded task, the cluster's vApp) →
 * decide ({@link decideMachine}) → write (one VCD call, its task recorded), and the status written
 * once when the reconcile ends. It never waits for a task, and makes no VCD call while paused,
 * before the cluster's infrastructure is provisioned, or before bootstrap data exists.
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
} from '@capstan/runtime';
import { MACHINE_FINALIZER } from '../api/keys.js';
import { type VCDCluster, VCDMachineType } from '../api/types.js';
import { specHonouredCondition, unactedMachineFields } from '../compat.js';
import { CredentialsSecrets } from '../credentials-secrets.js';
import {
  decideMachine,
  lockScope,
  type MachineIntent,
  type MachineStep,
  releasableWithoutVcd,
} from '../decide/machine.js';
import { addressingOf } from '../decide/nics.js';
import { endSeenOnVm } from '../decide/vm-task-end.js';
import type { CapvcdMetrics } from '../metrics.js';
import { vappMarker, vmMarker, vmNameFor, vmUrn } from '../naming.js';
import { connectionFor, gate, NotReady } from '../scope.js';
import { writeStatus } from '../status.js';
import { capvcdVmName } from '../takeover.js';
import { pollDelay, RecordedTasks, type TaskPolling, type TaskTurn } from '../tasks.js';
import type { Connections } from '../vcd/connections.js';
import { type ErrorBackoffCurve, VcdErrorBackoff } from '../vcd/error-backoff.js';
import type { VmRecord } from '../vcd/vapp.js';
import { act } from './act.js';
import { addressedNics, releaseClaims } from './addresses.js';
import { CreateBatches } from './create-batch.js';
import { VmDrift } from './drift.js';
import { powerOffIntent, wantedHardware } from './hardware.js';
import { guestinfoOf, observeVApp, readBootstrap } from './inputs.js';
import { reportFailure, taskRuns, waiting } from './not-ready.js';
import { placementOf, vappNameOf } from './placement.js';
import { recordProvisioned } from './provisioned.js';
import { type MachineScope, machineScope, normalInputs, vcdClusterOf } from './scope.js';
import type { Target, Unplaceable } from './target.js';
import { VAppLocks } from './vapp-locks.js';
import { VAppReads } from './vapp-reads.js';
import { VAppTurns } from './vapp-turns.js';
import { vmTaskTurn } from './vm-task.js';

/** What the reconciler works with. */
export interface MachineReconcilerDeps {
  client: Client;
  /** Where the credentials Secret is read (default: the API server, each time). */
  secrets?: CredentialsSecrets;
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
  /** How often a provisioned machine's VM is read again for drift (see {@link VmDrift}); 0 or unset: never. */
  driftPeriodMs?: number;
}

/** What the normal and delete paths add to the intent, once the vApp and VM are seen. */
type IntentOf = (vm: VmRecord | undefined) => Promise<IntentExtras>;
type IntentExtras = Omit<MachineIntent, 'vmName' | 'vappMarker' | 'vmMarker' | 'deleting'>;

/** What a turn on the vApp decided, and the machine's VM as it saw it. */
interface Seen {
  step: MachineStep;
  vm: VmRecord | undefined;
}

const WAITING_MS = 3_000;
/** A look left out: a task another machine started runs on the vApp (see VAppLocks). */
const LOCKED: Extract<MachineStep, { kind: 'WaitForVCD' }> = {
  kind: 'WaitForVCD',
  reason: 'VAppBusy',
  message: 'a task this provider started on the vApp still runs',
};

/** Reconciles VCDMachines. */
export class VCDMachineReconciler implements Reconciler {
  private readonly tasks: RecordedTasks;
  private readonly vappTurns = new VAppTurns();
  private readonly vappLocks: VAppLocks;
  private readonly vappReads: VAppReads;
  private readonly backoff: VcdErrorBackoff;
  private readonly drift: VmDrift;
  private readonly creates: CreateBatches;
  private readonly secrets: CredentialsSecrets;

  /** Brings a machine's reconcile forward (its controller's queue), once the controller is built. */
  private wake: ((machine: string) => void) | undefined;

  constructor(private readonly deps: MachineReconcilerDeps) {
    this.secrets = deps.secrets ?? new CredentialsSecrets(deps.client);
    this.tasks = new RecordedTasks(deps);
    this.drift = new VmDrift({ ...deps, tasks: this.tasks, periodMs: deps.driftPeriodMs ?? 0 });
    this.backoff = new VcdErrorBackoff(deps.clock, deps.vcdErrorBackoff);
    this.vappLocks = new VAppLocks(deps.clock);
    this.vappReads = new VAppReads(deps.clock);
    this.creates = new CreateBatches(deps.clock, {
      locks: this.vappLocks,
      record: (task, operation) => this.tasks.record(task, operation),
      lookMs: 1.25 * (deps.recheckMs ?? WAITING_MS), // a waiting machine's jittered recheck, at most
      pollMs: this.tasks.polling.minMs,
      wake: (machine) => this.wake?.(machine),
    });
  }

  /** How to bring a machine's reconcile forward: its controller's enqueue (set once it is built). */
  wakeWith(wake: (machine: string) => void): void {
    this.wake = wake;
  }

  async reconcile(request: Request, { log }: ReconcileContext): Promise<Result | undefined> {
    const { client, clock } = this.deps;
    const s = await machineScope(client, request, log);
    if (!s) return undefined;
    const stop = await gate(
      client,
      VCDMachineType,
      s.vcdMachine,
      s.status,
      s.cluster,
      MACHINE_FINALIZER,
      clock,
    );
    if (stop) return stop.result;
    specHonouredCondition(s.status, s.vcdMachine, unactedMachineFields(s.vcdMachine.spec));
    const result = await this.reconcileScope(s);
    // The one status write (only what changed), unless the object was let go.
    if (!s.released) await writeStatus(client, VCDMachineType, s.vcdMachine, s.status, clock);
    return result;
  }

  /** Backs off after VCD errors, else the normal or delete path; what stops it, in conditions. */
  private async reconcileScope(s: MachineScope): Promise<Result | undefined> {
    // Backing off after a VCD error: an event that brings the object early does not call VCD.
    const backingOff = this.backoff.remaining(s.key);
    if (backingOff > 0) return { requeueAfter: backingOff };
    try {
      const result = s.deleting ? await this.reconcileDelete(s) : await this.reconcileNormal(s);
      this.backoff.succeeded(s.key);
      return result;
    } catch (err) {
      return reportFailure(s, err, this.backoff);
    }
  }

  /** Creates, configures and powers on the machine's VM, until it is provisioned. */
  private async reconcileNormal(s: MachineScope): Promise<Result | undefined> {
    const { machine, vcdCluster, clusterName } = normalInputs(s);
    // Provisioned and spec.providerID kept: only the drift check asks VCD, until deletion.
    if (s.status.initialization?.provisioned && s.vcdMachine.spec.providerID)
      return this.drift.check(s, () => connectionFor(this.secrets, this.deps.connections, vcdCluster));
    const target = await this.target(s, vcdCluster, clusterName);
    if ('reason' in target) throw new NotReady(target.reason, target.message);
    const namespace = s.vcdMachine.metadata.namespace as string;
    const { networks, ovdc } = target.placement;
    const addressed = await addressedNics(this.deps.client, s.vcdMachine, clusterName, networks);
    target.addressing = addressingOf(addressed.nics, addressed.claimed);
    const intentOf: IntentOf = async (vm) => {
      const secret = await readBootstrap(this.deps.client, namespace, machine);
      const hardware = wantedHardware(s.vcdMachine.spec);
      if (!vm) return { guestinfo: {}, hardware };
      return {
        guestinfo: await guestinfoOf(target.connection, secret, vm, target.vmName, addressed, ovdc),
        hardware,
      };
    };
    const seen = await this.turnOnVApp(s, vcdCluster, target, intentOf);
    if (!('step' in seen)) return seen;
    const { step, vm } = seen;
    if (step.kind === 'Provisioned' && vm) {
      this.vappLocks.forget(target.vappKey, s.key);
      this.creates.forget(target.vappKey, s.key);
      await recordProvisioned(this.deps.client, s, step.vm, vm, target.placement.zone);
      return this.drift.seen(s.key);
    }
    return waiting(s, step, this.deps.recheckMs ?? WAITING_MS, this.tasks.polling.minMs);
  }

  /** Takes the VM (and the vApp with the last VM) down, then lets the VCDMachine go. */
  private async reconcileDelete(s: MachineScope): Promise<Result | undefined> {
    const vcdCluster = vcdClusterOf(s);
    const target = await this.target(s, vcdCluster, s.clusterName as string);
    if ('reason' in target) return this.unplaceable(s, target);
    const poolMembers = vcdCluster.status?.loadBalancer?.members ?? [];
    const ruleMembers = new Set(vcdCluster.status?.affinityRules?.flatMap((r) => r.members ?? []));
    // Not when the whole cluster goes: its load balancer is deleted after its machines, and no CSI
    // driver is left to detach named disks.
    const clusterStays = !vcdCluster.metadata.deletionTimestamp;
    const intentOf: IntentOf = async (vm) => ({
      guestinfo: {},
      inLoadBalancer: clusterStays && vm?.ip !== undefined && poolMembers.includes(vm.ip),
      inAffinityRule: vm !== undefined && ruleMembers.has(vmUrn(vm)),
      guardNamedDisks: clusterStays,
      powerOff: powerOffIntent(s.vcdMachine.spec, s.status, this.deps.clock.now()),
    });
    const seen = await this.turnOnVApp(s, vcdCluster, target, intentOf);
    if (!('step' in seen)) return seen;
    if (seen.step.kind === 'Deleted') {
      this.vappLocks.forget(target.vappKey, s.key);
      this.creates.forget(target.vappKey, s.key);
      await this.release(s);
      return undefined;
    }
    return waiting(s, seen.step, this.deps.recheckMs ?? WAITING_MS, this.tasks.polling.minMs);
  }

  /** The VM's name and placement and a connection to its site, or why there are none. */
  private async target(
    s: MachineScope,
    vcdCluster: VCDCluster,
    clusterName: string,
  ): Promise<Target | Unplaceable> {
    const { vcdMachine, machine } = s;
    const template = vcdMachine.spec.vmNamingTemplate;
    // A CAPVCD cluster taken over: its VMs are named by CAPVCD's rule.
    const capvcdName = capvcdVmName(vcdCluster, template, machine?.metadata.name, s.status.vmName);
    const named = capvcdName
      ? vmNameFor(undefined, { cluster: clusterName, vcdMachine: { metadata: { name: capvcdName } } })
      : vmNameFor(template, { cluster: clusterName, ...(machine ? { machine } : {}), vcdMachine });
    if ('error' in named) return { reason: 'InvalidVMName', message: named.error };
    const placement = placementOf(vcdCluster, vcdMachine, machine);
    if ('error' in placement) return { reason: 'InvalidFailureDomain', message: placement.error };
    const connection = await connectionFor(this.secrets, this.deps.connections, vcdCluster);
    const labels = { ...vcdMachine.metadata.labels, ...machine?.metadata.labels };
    const vapp = await vappNameOf(connection.directory, vcdCluster, placement.ovdc, labels);
    if ('error' in vapp) return { reason: 'InvalidVAppName', message: vapp.error };
    return {
      connection,
      placement,
      vmName: named.name,
      vappName: vapp.name,
      vappKey: `${vcdCluster.metadata.uid}/${placement.ovdc}/${vapp.name}`,
    };
  }

  /**
   * The recorded task's turn, then read → decide → write in turn with the cluster's other machines
   * (see VAppTurns). While the recorded task still runs, when to look at it again.
   */
  private async turnOnVApp(
    s: MachineScope,
    vcdCluster: VCDCluster,
    t: Target,
    intentOf: IntentOf,
  ): Promise<Seen | Result> {
    // A batch another machine sent with this one's VM: its task is this machine's, polled from now.
    if (this.creates.claim(s, t.vappKey)) return taskRuns(s, this.tasks.polling.minMs);
    const lookFrom = this.deps.clock.now();
    // A VM task of the create path: its end is looked for on the VM, in this turn's read (vm-task.ts).
    const onVm = !s.deleting && endSeenOnVm(s.status.task?.operation) ? s.status.task : undefined;
    let turn: TaskTurn = { running: false };
    try {
      if (!onVm) turn = await this.tasks.turn(t.connection.vcd, VCDMachineType, s.vcdMachine, s.status);
    } finally {
      if (!s.status.task) this.vappLocks.release(t.vappKey, s.key); // ended, failed or none
    }
    const { task } = s.status;
    if (turn.running) {
      this.vappLocks.hold(t.vappKey, s.key, task?.operation ?? '', turn.pollAfterMs, task?.href);
      return taskRuns(s, turn.pollAfterMs);
    }
    if (turn.endedHref) this.vappLocks.ended(t.vappKey, turn.endedHref);
    // A sibling's read of the vApp stands for this machine's own once it began after what changed its VM.
    const freshAfter = onVm ? Date.parse(onVm.startedAt) : (turn.endedSeenAt ?? lookFrom);
    const seen = await this.vappTurns.take(t.vappKey, () =>
      this.onVApp(s, vcdCluster, t, intentOf, freshAfter),
    );
    if (onVm && seen.step.kind === 'WaitForTask') {
      const pollAfterMs = pollDelay(onVm.startedAt, this.deps.clock.now(), this.tasks.polling);
      this.vappLocks.hold(t.vappKey, s.key, onVm.operation, pollAfterMs, onVm.href);
      return taskRuns(s, pollAfterMs);
    }
    // Our task on the vApp ended and none other is believed to run: the oldest waiting VM's machine goes now.
    if ((turn.endedHref || onVm) && !s.status.task) this.creates.nudge(t.vappKey, s.key);
    return seen;
  }

  /** One turn on the vApp: look (unless only "busy" could be seen), decide, write, record. */
  private async onVApp(
    s: MachineScope,
    vcdCluster: VCDCluster,
    t: Target,
    intentOf: IntentOf,
    freshAfter: number,
  ): Promise<Seen> {
    const { vcdMachine, status, log } = s;
    const { connection, placement, vmName, vappName, vappKey } = t;
    const namespace = vcdMachine.metadata.namespace as string;
    const markers = {
      vmName,
      vappMarker: vappMarker(namespace, vcdCluster.metadata.name as string),
      vmMarker: vmMarker(namespace, vcdMachine.metadata.name as string),
    };
    if (s.deleting) this.creates.forget(vappKey, s.key);
    else if (this.vappLocks.mustWait(vappKey, s.key, false)) {
      // Busy with our own task: a machine with no VM yet waits in the vApp's next recompose.
      const joins = this.vappLocks.knownWithoutVm(s.key) || status.vmName === undefined;
      return {
        step: joins ? await this.creates.wait(s, t, markers.vmMarker, LOCKED.message) : LOCKED,
        vm: undefined,
      };
    }
    // A CAPVCD cluster taken over: its vApp and this machine's VM count as ours (no VM made again).
    const read = () => this.vappReads.look(t, { vmName, deleting: s.deleting, freshAfter });
    const vapp = await observeVApp(connection, placement.ovdc, vappName, { vcdCluster, markers }, read);
    const vm = vapp?.vms.find((v) => v.name === vmName);
    const intent: MachineIntent = {
      ...markers,
      deleting: s.deleting,
      ...(await intentOf(vm)),
    };
    let step = decideMachine(intent, { taskRunning: false, ...(vapp ? { vapp } : {}) });
    const onVm = await vmTaskTurn({ tasks: this.tasks, locks: this.vappLocks }, s, t, vm, step);
    if (onVm) return { step: onVm, vm };
    if (!s.deleting && !vm && step.kind === 'WaitForVCD')
      step = await this.creates.wait(s, t, markers.vmMarker, step.message);
    const sent =
      step.kind === 'CreateVM' && vapp ? await this.creates.send(s, t, vapp, markers.vmMarker) : undefined;
    if (sent) this.vappReads.changed(vappKey); // a recompose was sent (or refused)
    if (sent && !sent.task)
      step = { ...LOCKED, message: `a recompose of ${sent.batch.length} older VMs was sent first` };
    this.vappLocks.decided(s.key, step, s.deleting);
    status.vmName = vmName;
    const task = sent
      ? sent.task
      : await act({
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
          guestinfo: intent.guestinfo,
        });
    if (task) {
      status.task = this.tasks.record(task, step.kind);
      if (step.kind === 'ShutdownGuest') status.guestShutdownRequestedAt = status.task.startedAt;
      // A write on the vApp as a whole, or on a deleted machine's VM: no earlier read stands for a sibling's.
      if (lockScope(step.kind) === 'vapp' || s.deleting) this.vappReads.changed(vappKey);
      this.vappLocks.hold(vappKey, s.key, step.kind, this.tasks.polling.minMs, task.href);
      log.info({ step: step.kind, vm: vmName }, 'VCD task started');
      this.deps.events.record(VCDMachineType, vcdMachine, {
        type: 'Normal',
        reason: step.kind,
        action: step.kind,
        note:
          sent && sent.batch.length > 1 ? `VM ${vmName} and ${sent.batch.length - 1} more` : `VM ${vmName}`,
      });
    }
    return { step, vm };
  }

  /**
   * A machine being deleted whose VM cannot be named or placed: one that never asked VCD for a VM
   * is released, so deletion does not wait on a fix; any other keeps a condition saying why.
   */
  private async unplaceable(s: MachineScope, why: Unplaceable): Promise<undefined> {
    if (!releasableWithoutVcd({ ...s.status, providerID: s.vcdMachine.spec.providerID }))
      throw new NotReady(why.reason, why.message);
    await this.release(s);
    return undefined;
  }

  /** Drops our finalizer: the VCDMachine may go, and nothing of it is written any more. */
  private async release(s: MachineScope): Promise<void> {
    await releaseClaims(this.deps.client, s.vcdMachine);
    await removeFinalizer(this.deps.client, VCDMachineType, s.vcdMachine, MACHINE_FINALIZER);
    s.released = true;
    this.drift.forget(s.key);
  }
}
