/**
 * The VCDMachine's next VCD call, as a pure function of what the machine wants and what VCD
 * reports. Each reconcile reads VCD, asks {@link decideMachine}, makes at most one write, records
 * the task it returns and ends: no reconcile waits for a task.
 *
 * Safety, and where it is kept:
 * 1. Never two VMs for one machine: `CreateVM` only when the vApp holds no VM of that name and no
 *    task runs on the vApp (a create in flight whose task href was lost shows as a busy vApp), and
 *    only when no recorded task of ours still runs. VCD itself refuses a second create on the busy
 *    vApp (BUSY_ENTITY) or a duplicate name.
 * 2. Never touch what is not ours: a vApp or VM is ours only when its description carries our
 *    marker; one with our name but another marker blocks with a condition, and is never deleted.
 * 3. Deletion is power off → undeploy → delete; the vApp goes with its last VM, and only when no
 *    task runs on it (a create in flight keeps it). A VM with named disks attached waits for their
 *    detach (unless the whole cluster goes). With `powerOffMode` trySoft or soft the guest is shut
 *    down first (see {@link powerOffStep}).
 */
import {
  hardwareMatches,
  type ObservedHardware,
  type PowerOffIntent,
  powerOffStep,
  type WantedHardware,
  wantsHardware,
} from './hardware.js';

/** A VM as VCD reports it (the parts the decision reads). */
export interface ObservedVM {
  name: string;
  /** VCD status: -1 failed, 0 unresolved, 1 resolved, 4 powered on, 8 powered off, ... */
  status: number;
  deployed: boolean;
  /** Tasks running on the VM. */
  busy: boolean;
  description: string;
  /** The primary NIC's IP, once VCD reports one. */
  ip?: string;
  /** The VM's ExtraConfig keys (guestinfo.*). */
  extraConfig: Record<string, string>;
  /** Named (independent) disks attached to it, by name: the CSI driver's volumes. */
  namedDisks?: string[];
  /** Its sizing and disks (VmSpecSection), when read. */
  hardware?: ObservedHardware;
}

/** The cluster's vApp as VCD reports it. */
export interface ObservedVApp {
  deployed: boolean;
  busy: boolean;
  description: string;
  vms: ObservedVM[];
}

/** What the machine wants. */
export interface MachineIntent {
  vmName: string;
  /** Description marker of the cluster's vApp, and of this machine's VM. */
  vappMarker: string;
  vmMarker: string;
  /** The ExtraConfig keys the VM must carry before it powers on (bootstrap data, metadata). */
  guestinfo: Record<string, string>;
  deleting: boolean;
  /**
   * A control-plane machine's IP is still a member of the cluster's load balancer pool: while
   * deleting, its VM stays powered on until the pool has dropped it, so the pool never sends
   * traffic to a VM going down.
   */
  inLoadBalancer?: boolean;
  /**
   * The VM is still a member of one of the cluster's anti-affinity rules: while deleting, it is
   * deleted only once the rule has dropped it (the cluster's reconciler takes it out).
   */
  inAffinityRule?: boolean;
  /**
   * While deleting, a VM with named disks attached is not touched until they are detached (their
   * data is a workload's, and the CSI driver detaches them as the node drains). Off when the whole
   * cluster goes: no CSI driver is left to detach them, and VCD keeps them, detached, past the VM.
   */
  guardNamedDisks?: boolean;
  /** CPU, memory and data disks of the machine's own, set before the first power-on. */
  hardware?: WantedHardware;
  /** How a powered-on VM is taken down on delete (absent: hard power-off). */
  powerOff?: PowerOffIntent;
}

/** What VCD (and our recorded task) report now. */
export interface MachineObservation {
  /** A task we recorded is still queued or running. */
  taskRunning: boolean;
  /** The cluster's vApp, `undefined` when it does not exist. */
  vapp?: ObservedVApp;
}

/** VCD status codes the decision names. */
export const VmStatus = {
  FailedCreation: -1,
  Unresolved: 0,
  Resolved: 1,
  PoweredOn: 4,
  PoweredOff: 8,
} as const;

/** The next call, or why there is none. */
export type MachineStep =
  | { kind: 'WaitForTask' }
  | { kind: 'WaitForVCD'; reason: string; message: string }
  | { kind: 'CreateVApp' }
  | { kind: 'CreateVM' }
  | { kind: 'ConfigureVM' }
  | { kind: 'PowerOn' }
  | { kind: 'WaitForIP' }
  | { kind: 'Provisioned'; vm: ObservedVM }
  | { kind: 'PowerOff' }
  | { kind: 'ShutdownGuest' }
  | { kind: 'UndeployVM' }
  | { kind: 'DeleteVM' }
  | { kind: 'UndeployVApp' }
  | { kind: 'DeleteVApp' }
  | { kind: 'Deleted' }
  | { kind: 'Blocked'; reason: string; message: string };

/** Step kinds that write to VCD (each returns a task). */
export const WRITES = new Set<MachineStep['kind']>([
  'CreateVApp',
  'CreateVM',
  'ConfigureVM',
  'PowerOn',
  'PowerOff',
  'ShutdownGuest',
  'UndeployVM',
  'DeleteVM',
  'UndeployVApp',
  'DeleteVApp',
]);

/**
 * Whether the VM already carries every wanted ExtraConfig key with its value, and the machine's
 * own CPU, memory and data disks when it asks for any.
 */
export const isConfigured = (
  vm: ObservedVM,
  guestinfo: Record<string, string>,
  hardware?: WantedHardware,
): boolean =>
  Object.entries(guestinfo).every(([key, value]) => vm.extraConfig[key] === value) &&
  (!wantsHardware(hardware) || (vm.hardware !== undefined && hardwareMatches(hardware, vm.hardware)));

/** The machine's next step. Pure: same inputs, same step. */
export function decideMachine(intent: MachineIntent, seen: MachineObservation): MachineStep {
  if (seen.taskRunning) return { kind: 'WaitForTask' };
  const vapp = seen.vapp;
  if (intent.deleting) return vapp ? decideDeletion(intent, vapp) : { kind: 'Deleted' };
  if (!vapp) return { kind: 'CreateVApp' };
  if (vapp.description !== intent.vappMarker) {
    return {
      kind: 'Blocked',
      reason: 'VAppNameInUse',
      message: 'a vApp of the cluster’s name exists that this provider did not create',
    };
  }
  const vm = vapp.vms.find((v) => v.name === intent.vmName);
  // A recompose locks the vApp and all its VMs, a VM's task locks the VM: a write that VCD
  // would refuse (BUSY_ENTITY) waits instead of being sent.
  if (!vm) {
    if (vapp.busy) return { kind: 'WaitForVCD', reason: 'VAppBusy', message: 'a task runs on the vApp' };
    if (vapp.vms.some((v) => v.busy))
      return { kind: 'WaitForVCD', reason: 'VAppBusy', message: 'a task runs on a VM of the vApp' };
    return { kind: 'CreateVM' };
  }
  if (vm.description !== intent.vmMarker) {
    return {
      kind: 'Blocked',
      reason: 'VMNameInUse',
      message: `VM ${vm.name} exists and belongs to something else`,
    };
  }
  if (vm.busy || vapp.busy)
    return { kind: 'WaitForVCD', reason: 'VMBusy', message: 'a task runs on the VM or its vApp' };
  switch (vm.status) {
    case VmStatus.FailedCreation:
      return { kind: 'DeleteVM' }; // ours and unusable: remove it, the next round creates it again
    case VmStatus.Unresolved:
    case VmStatus.Resolved:
      return { kind: 'WaitForVCD', reason: 'VMNotResolved', message: `VM status ${vm.status}` };
    case VmStatus.PoweredOff:
      return isConfigured(vm, intent.guestinfo, intent.hardware)
        ? { kind: 'PowerOn' }
        : { kind: 'ConfigureVM' };
    case VmStatus.PoweredOn:
      return vm.ip ? { kind: 'Provisioned', vm } : { kind: 'WaitForIP' };
    default:
      return { kind: 'WaitForVCD', reason: 'VMState', message: `VM status ${vm.status}` };
  }
}

function decideDeletion(intent: MachineIntent, vapp: ObservedVApp): MachineStep {
  if (vapp.description !== intent.vappMarker) return { kind: 'Deleted' }; // not ours: leave it
  const vm = vapp.vms.find((v) => v.name === intent.vmName && v.description === intent.vmMarker);
  if (vm) {
    if (vm.busy || vapp.busy)
      return { kind: 'WaitForVCD', reason: 'VMBusy', message: 'a task runs on the VM or its vApp' };
    if (intent.guardNamedDisks && (vm.namedDisks?.length ?? 0) > 0)
      return {
        kind: 'Blocked',
        reason: 'NamedDisksAttached',
        message: `named disks still attached (${vm.namedDisks?.join(', ')}): the VM is deleted once they are detached`,
      };
    if (vm.status === VmStatus.PoweredOn && intent.inLoadBalancer)
      return {
        kind: 'WaitForVCD',
        reason: 'LoadBalancerMember',
        message: 'the VM leaves the control-plane load balancer pool before it powers off',
      };
    if (vm.status === VmStatus.PoweredOn) return powerOffStep(intent.powerOff);
    if (vm.deployed) return { kind: 'UndeployVM' };
    if (intent.inAffinityRule)
      return {
        kind: 'WaitForVCD',
        reason: 'AffinityRuleMember',
        message: 'the VM leaves the cluster’s anti-affinity rule before it is deleted',
      };
    return { kind: 'DeleteVM' };
  }
  // Our VM is gone. The vApp goes with the last VM; a task on it (a create?) is waited out.
  if (vapp.vms.length > 0) return { kind: 'Deleted' }; // the last VM's machine removes it
  if (vapp.busy) return { kind: 'WaitForVCD', reason: 'VAppBusy', message: 'a task runs on the vApp' };
  return vapp.deployed ? { kind: 'UndeployVApp' } : { kind: 'DeleteVApp' };
}

/** What a VCDMachine itself records of VCD: the VM name it used, a task, its providerID. */
export interface MachineTrace {
  vmName?: string;
  task?: unknown;
  providerID?: string;
}

/**
 * Whether a VCDMachine being deleted may drop its finalizer without looking in VCD: only when
 * nothing it records says a VM was ever asked for. It is for a machine whose VDC or VM name cannot
 * be worked out (a failure domain the cluster lacks), which would otherwise never be deleted; one
 * that once asked for a VM keeps its finalizer and its condition rather than leak that VM.
 */
export function releasableWithoutVcd(trace: MachineTrace): boolean {
  return trace.vmName === undefined && trace.task === undefined && !trace.providerID;
}

/** What a running task locks in VCD: a vApp task the vApp and all its VMs, a VM task that VM. */
export type LockScope = 'vapp' | 'vm';

/**
 * The lock the task of a write step (a step kind, as tasks are recorded) holds: compose, recompose
 * and the vApp's undeploy and delete lock it all; any other kind, a VM.
 */
export function lockScope(kind: string): LockScope {
  return kind === 'CreateVApp' || kind === 'CreateVM' || kind === 'UndeployVApp' || kind === 'DeleteVApp'
    ? 'vapp'
    : 'vm';
}

/** What one machine's next look at its cluster's vApp can be known to find, without making it. */
export interface LookAhead {
  deleting: boolean;
  /** The machine's last look found no VM of its own (it waited to create one). */
  knownWithoutVm: boolean;
  /** Locks that other machines' running tasks of ours hold on the vApp. */
  othersLocks: LockScope[];
}

/**
 * Whether the machine's look at the vApp could only end in a step that writes nothing and changes
 * nothing (`WaitForVCD` for a busy entity, or `Blocked`), so the GET can be left out: a vApp lock
 * makes every step of a machine not being deleted wait (its VM is locked too); a VM lock makes a
 * create wait. A machine being deleted always looks: its VM may be gone, which needs no lock.
 */
export function lookWouldWait(ahead: LookAhead): boolean {
  if (ahead.deleting) return false;
  if (ahead.othersLocks.includes('vapp')) return true;
  return ahead.knownWithoutVm && ahead.othersLocks.length > 0;
}
