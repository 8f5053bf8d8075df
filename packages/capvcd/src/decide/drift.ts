/**
 * Drift: what becomes of a provisioned machine whose VM someone changed behind our back (powered
 * off or deleted in the VCD UI). A VM found off is powered on again, as CAPV does; a VM found gone
 * is never created again (a Machine's infrastructure is immutable): it is reported, with a reason a
 * MachineHealthCheck can act on, and left alone.
 */
import { VmStatus } from './machine.js';

/** The reason of VMProvisioned=False (and Ready=False) when a provisioned machine's VM is gone. */
export const VM_NOT_FOUND = 'VMNotFound';
/** The event and condition reason when a provisioned machine's VM was found powered off. */
export const VM_POWERED_OFF = 'VMPoweredOff';

/** A provisioned machine's VM as a re-read found it; `undefined` when VCD no longer knows it. */
export interface DriftSeen {
  status: number;
  busy: boolean;
}

/** What to do about it. */
export type DriftStep =
  | { kind: 'InPlace' }
  | { kind: 'PowerOn' }
  | { kind: 'Gone' }
  | { kind: 'Wait'; reason: string; message: string };

/** The step for a provisioned machine's VM. Pure. */
export function decideDrift(vm: DriftSeen | undefined): DriftStep {
  if (!vm) return { kind: 'Gone' };
  if (vm.busy) return { kind: 'Wait', reason: 'VMBusy', message: 'a task runs on the VM' };
  if (vm.status === VmStatus.PoweredOn) return { kind: 'InPlace' };
  if (vm.status === VmStatus.PoweredOff) return { kind: 'PowerOn' };
  return { kind: 'Wait', reason: 'VMState', message: `VM status ${vm.status}` };
}

/** When a provisioned machine last had its VM read, and what may bring a read early. */
export interface DriftClock {
  /** The re-read period in ms; 0 switches drift checks off. */
  periodMs: number;
  now: number;
  /** The last re-read of this machine's VM (by this process), if any. */
  lastReadAt?: number;
  /** A task this provider recorded for the machine has just ended (its effect is to be seen). */
  taskEnded: boolean;
}

/**
 * Whether the VM is read now: at most once a period, whatever brings the reconcile (a watch event
 * of the Machine or Cluster does not cost a VCD call), and at once after a task of ours ended.
 */
export function driftReadDue(c: DriftClock): boolean {
  if (c.taskEnded) return true;
  if (c.periodMs <= 0) return false;
  return c.lastReadAt === undefined || c.now - c.lastReadAt >= c.periodMs;
}
