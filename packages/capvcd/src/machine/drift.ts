/**
 * The drift check of provisioned machines: each one's VM is read again once a period (one GET per
 * machine per period, whatever else brings its reconcile), and at once when a power-on it started
 * has ended. A VM found off is powered on with a Warning event; a VM found gone is reported as
 * VMProvisioned=False/VMNotFound (Ready too, which the Machine mirrors as InfrastructureReady, so a
 * MachineHealthCheck's `unhealthyMachineConditions` can replace it) and never looked at again.
 */
import { type Clock, type EventRecorder, jittered, type Result } from '@capstan/runtime';
import { Conditions } from '../api/keys.js';
import { VCDMachineType } from '../api/types.js';
import { decideDrift, driftReadDue, VM_NOT_FOUND, VM_POWERED_OFF } from '../decide/drift.js';
import { vmPathOf } from '../naming.js';
import { condition } from '../status.js';
import type { RecordedTasks } from '../tasks.js';
import type { Connection } from '../vcd/connections.js';
import { VcdError } from '../vcd/errors.js';
import { getVm, powerOn, type VmRecord } from '../vcd/vapp.js';
import type { MachineScope } from './scope.js';

/** What the drift check works with. */
export interface DriftDeps {
  tasks: RecordedTasks;
  events: EventRecorder;
  clock: Clock;
  /** The re-read period in ms; 0 switches drift checks off. */
  periodMs: number;
}

/** Re-reads provisioned machines' VMs, and puts back what it can. */
export class VmDrift {
  /** Machine key → when this process last read its VM. */
  private readonly lastRead = new Map<string, number>();

  constructor(private readonly deps: DriftDeps) {}

  /** The machine's VM was just read (it was found provisioned): the next read is a period away. */
  seen(key: string): Result | undefined {
    this.lastRead.set(key, this.deps.clock.now());
    return this.next();
  }

  /** The machine is gone or deleting: nothing more to check. */
  forget(key: string): void {
    this.lastRead.delete(key);
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
    switch (step.kind) {
      case 'InPlace':
        // Back on after a power-on of ours: Ready again. A VM found as it was changes nothing.
        if (ready(s) !== 'True') condition(status, vcdMachine, Conditions.Ready, true, 'Provisioned');
        return this.next();
      case 'Gone': {
        const message = `VM ${name} (${vcdMachine.spec.providerID}) is gone from VCD; it is not created again`;
        this.record(s, VM_NOT_FOUND, message);
        condition(status, vcdMachine, Conditions.VMProvisioned, false, VM_NOT_FOUND, message);
        condition(status, vcdMachine, Conditions.Ready, false, VM_NOT_FOUND, message);
        this.forget(s.key);
        return undefined; // nothing left to look at: no loop on a vanished VM
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

const ready = (s: MachineScope) => s.status.conditions?.find((c) => c.type === Conditions.Ready)?.status;

/** A machine already reported gone is not read again. */
const vmGone = (s: MachineScope): boolean =>
  s.status.conditions?.some((c) => c.type === Conditions.VMProvisioned && c.reason === VM_NOT_FOUND) === true;

/** The VM at `path`, or undefined when VCD no longer knows it. */
async function readVm(connection: Connection, path: string): Promise<VmRecord | undefined> {
  try {
    return await getVm(connection.vcd, path);
  } catch (err) {
    if (err instanceof VcdError && err.notFound) return undefined; // VCD says 403 for a VM that is gone
    throw err;
  }
}
