/**
 * The drift check of provisioned machines: each one's VM is read again once a period (one GET per
 * machine per period, whatever else brings its reconcile), and at once when a power-on it started
 * has ended. A VM found off is powered on with a Warning event; a VM found gone is reported as
 * VMProvisioned=False/VMNotFound (Ready too, which the Machine mirrors as InfrastructureReady, so a
 * MachineHealthCheck's `unhealthyMachineConditions` can replace it) and never looked at again.
 * "Gone" needs proof: a VM read answered 403/404 (VCD's answer for a missing VM and for one the
 * session may not see) is followed by a fresh read of the cluster's VDC and vApp; when those are
 * denied too, the credentials lost rights: VMReadable=False/VCDAccessDenied and a Warning event,
 * Ready left as it was, the read retried with backoff. Only a 403/404 costs these extra reads.
 */
import {
  type Clock,
  type EventRecorder,
  getCondition,
  isConditionTrue,
  jittered,
  type Result,
} from '@capstan/runtime';
import { Conditions } from '../api/keys.js';
import { VCDMachineType } from '../api/types.js';
import {
  decideDrift,
  decideGone,
  driftReadDue,
  type GoneCheck,
  type Sight,
  VCD_ACCESS_DENIED,
  VM_NOT_FOUND,
  VM_POWERED_OFF,
} from '../decide/drift.js';
import { vmPathOf } from '../naming.js';
import { condition } from '../status.js';
import type { RecordedTasks } from '../tasks.js';
import type { Connection } from '../vcd/connections.js';
import { type ErrorBackoffCurve, VcdErrorBackoff } from '../vcd/error-backoff.js';
import { VcdError } from '../vcd/errors.js';
import { getVApp, getVm, powerOn, type VmRecord } from '../vcd/vapp.js';
import { machineAddresses } from './addresses.js';
import { placementOf, vappNameOf } from './placement.js';
import { type MachineScope, vcdClusterOf } from './scope.js';

/** What the drift check works with. */
export interface DriftDeps {
  tasks: RecordedTasks;
  events: EventRecorder;
  clock: Clock;
  /** The re-read period in ms; 0 switches drift checks off. */
  periodMs: number;
  /** The retry curve while VCD denies a VM and where it lived. */
  vcdErrorBackoff?: ErrorBackoffCurve;
}

/** Re-reads provisioned machines' VMs, and puts back what it can. */
export class VmDrift {
  /** Machine key → when this process last read its VM. */
  private readonly lastRead = new Map<string, number>();
  /** Machines whose VM VCD denies with where it lived: retried on this curve, not the period. */
  private readonly denied: VcdErrorBackoff;

  constructor(private readonly deps: DriftDeps) {
    this.denied = new VcdErrorBackoff(deps.clock, deps.vcdErrorBackoff);
  }

  /** The machine's VM was just read (it was found provisioned): the next read is a period away. */
  seen(key: string): Result | undefined {
    this.lastRead.set(key, this.deps.clock.now());
    return this.next();
  }

  /** The machine is gone or deleting: nothing more to check. */
  forget(key: string): void {
    this.lastRead.delete(key);
    this.denied.succeeded(key);
  }

  /**
   * One reconcile of a provisioned machine: the VM read when due (`connect` gives the site's
   * connection only then), and what it is found as settled in `s.status`.
   */
  async check(s: MachineScope, connect: () => Promise<Connection>): Promise<Result | undefined> {
    const { status, vcdMachine, key } = s;
    const { clock, periodMs, tasks } = this.deps;
    const vmPath = vmPathOf(vcdMachine.spec.providerID);
    if (!vmPath || vmGone(s)) return undefined;
    const taskEnded = status.task !== undefined;
    const deniedFor = this.denied.remaining(key);
    if (deniedFor > 0 && !taskEnded) return { requeueAfter: deniedFor };
    const lastReadAt = this.lastRead.get(key);
    const now = clock.now();
    if (!driftReadDue({ periodMs, now, taskEnded, ...(lastReadAt !== undefined ? { lastReadAt } : {}) }))
      return periodMs > 0 ? { requeueAfter: periodMs - (now - (lastReadAt ?? now)) } : undefined;
    const connection = await connect();
    if (taskEnded) {
      const turn = await tasks.turn(connection.vcd, VCDMachineType, vcdMachine, status);
      if (turn.running) return { requeueAfter: turn.pollAfterMs };
    }
    const vm = await readVm(connection, vmPath);
    this.lastRead.set(key, clock.now());
    return this.settle(s, connection, vm);
  }

  /** Acts on what the read found. */
  private async settle(
    s: MachineScope,
    connection: Connection,
    vm: VmRecord | undefined,
  ): Promise<Result | undefined> {
    const { status, vcdMachine } = s;
    const step = decideDrift(vm);
    const name = status.vmName ?? vcdMachine.metadata.name;
    if (vm) this.readable(s);
    switch (step.kind) {
      case 'InPlace':
        // Back on after a power-on of ours: Ready again. A VM found as it was changes nothing.
        if (!isConditionTrue(s.status.conditions, Conditions.Ready))
          condition(status, vcdMachine, Conditions.Ready, true, 'Provisioned');
        // NICs whose address came after the primary's (DHCP leases) join status.addresses.
        if (vm?.ip) status.addresses = machineAddresses(vm.name, vm.ip, vm.nics);
        return this.next();
      case 'Confirm': {
        const gone = decideGone(await confirmGone(s, connection));
        if (gone.kind === 'Gone') return this.gone(s, name);
        const message = `VM ${name} (${vcdMachine.spec.providerID}): ${gone.message}; not taken as gone`;
        if (readableStatus(s) !== 'False') this.record(s, VCD_ACCESS_DENIED, message);
        condition(status, vcdMachine, Conditions.VMReadable, false, VCD_ACCESS_DENIED, message);
        this.lastRead.delete(s.key); // read again once the backoff is over, not a period later
        return { requeueAfter: this.denied.failed(s.key) };
      }
      case 'PowerOn': {
        const message = `VM ${name} was found powered off; powering it on`;
        this.record(s, VM_POWERED_OFF, message);
        const task = await powerOn(connection.vcd, (vm as VmRecord).href);
        status.task = this.deps.tasks.record(task, 'PowerOn');
        condition(status, vcdMachine, Conditions.Ready, false, VM_POWERED_OFF, message);
        return { requeueAfter: this.deps.tasks.polling.minMs };
      }
      case 'Wait':
        return { requeueAfter: jittered(Math.min(this.deps.periodMs || 60_000, 60_000)) };
    }
  }

  /** A VM proven gone: reported for a MachineHealthCheck, and not looked at again. */
  private gone(s: MachineScope, name: string | undefined): undefined {
    const { status, vcdMachine } = s;
    const message = `VM ${name} (${vcdMachine.spec.providerID}) is gone from VCD; it is not created again`;
    this.record(s, VM_NOT_FOUND, message);
    condition(status, vcdMachine, Conditions.VMProvisioned, false, VM_NOT_FOUND, message);
    condition(status, vcdMachine, Conditions.Ready, false, VM_NOT_FOUND, message);
    this.forget(s.key);
    return undefined; // nothing left to look at: no loop on a vanished VM
  }

  /** The VM was read: a denial said before is over (no status change on the steady path). */
  private readable(s: MachineScope): void {
    this.denied.succeeded(s.key);
    if (readableStatus(s) === 'False')
      condition(
        s.status,
        s.vcdMachine,
        Conditions.VMReadable,
        true,
        'VMRead',
        'VCD answers for the VM again',
      );
  }

  private record(s: MachineScope, reason: string, note: string): void {
    this.deps.events.record(VCDMachineType, s.vcdMachine, {
      type: 'Warning',
      reason,
      action: 'DriftCheck',
      note,
    });
  }

  /** The next periodic read (±25 %, so a fleet's reads spread out), or none when checks are off. */
  private next(): Result | undefined {
    return this.deps.periodMs > 0 ? { requeueAfter: jittered(this.deps.periodMs) } : undefined;
  }
}

const readableStatus = (s: MachineScope) => getCondition(s.status.conditions, Conditions.VMReadable)?.status;

/** A machine already reported gone is not read again. */
const vmGone = (s: MachineScope): boolean =>
  getCondition(s.status.conditions, Conditions.VMProvisioned)?.reason === VM_NOT_FOUND;

/**
 * The confirming reads after the VM was denied: the cluster's VDC afresh (not a cached vApp href),
 * then the cluster's vApp (named as the machine reconciler names it) when the VDC lists it.
 */
async function confirmGone(s: MachineScope, connection: Connection): Promise<GoneCheck> {
  const vcdCluster = vcdClusterOf(s);
  const placement = placementOf(vcdCluster, s.vcdMachine, s.machine);
  if ('error' in placement) return { vdc: 'unreadable' }; // nowhere to look: nothing proven
  const { directory, vcd } = connection;
  const labels = { ...s.vcdMachine.metadata.labels, ...s.machine?.metadata.labels };
  const named = await vappNameOf(directory, vcdCluster, placement.ovdc, labels);
  if ('error' in named) return { vdc: 'unreadable' }; // no vApp to look in: nothing proven
  const vappName = named.name;
  const href = await denied(() => directory.vappHref(placement.ovdc, vappName, { fresh: true }));
  if (href === DENIED) return { vdc: 'unreadable' };
  if (!href) return { vdc: 'lacks' };
  const vapp = await denied(() => getVApp(vcd, href));
  const vmPath = vmPathOf(s.vcdMachine.spec.providerID) as string;
  const vappSight: Sight =
    vapp === DENIED ? 'unreadable' : vapp.vms.some((vm) => vm.href.endsWith(vmPath)) ? 'holds' : 'lacks';
  return { vdc: 'holds', vapp: vappSight };
}

const DENIED = Symbol('denied');

/** `read()`'s answer, or DENIED when VCD answers 403/404 (any other failure is thrown). */
async function denied<T>(read: () => Promise<T>): Promise<T | typeof DENIED> {
  try {
    return await read();
  } catch (err) {
    if (err instanceof VcdError && err.notFound) return DENIED;
    throw err;
  }
}

/** The VM at `path`, or undefined when VCD answers 403/404 (gone, or out of the session's sight). */
async function readVm(connection: Connection, path: string): Promise<VmRecord | undefined> {
  const vm = await denied(() => getVm(connection.vcd, path));
  return vm === DENIED ? undefined : vm; // gone or denied: confirmGone tells
}
