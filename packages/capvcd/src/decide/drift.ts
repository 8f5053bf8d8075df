/**
 * Drift: what becomes of a provisioned machine whose VM someone changed behind our back (powered
 * off or deleted in the VCD UI). A VM found off is powered on again, as CAPV does; a VM found gone
 * is never created again (a Machine's infrastructure is immutable): it is reported, with a reason a
 * MachineHealthCheck can act on, and left alone. VCD answers 403 both for a VM that is gone and
 * for one the session may no longer see, so a VM read answered 403/404 is only taken as gone once
 * a second read proves the session still sees where the VM lived: a credential that lost rights
 * must not make a whole fleet "gone" for a MachineHealthCheck to replace.
 */
import { VmStatus } from './machine.js';

/** The reason of VMProvisioned=False (and Ready=False) when a provisioned machine's VM is gone. */
export const VM_NOT_FOUND = 'VMNotFound';
/** The event and condition reason when a provisioned machine's VM was found powered off. */
export const VM_POWERED_OFF = 'VMPoweredOff';

/** The event reason and the reason of VMReadable=False when VCD denies the VM and where it lived. */
export const VCD_ACCESS_DENIED = 'VCDAccessDenied';

/** A provisioned machine's VM as a re-read found it; `undefined` when VCD answered 403/404. */
export interface DriftSeen {
  status: number;
  busy: boolean;
}

/** What to do about it. */
export type DriftStep =
  | { kind: 'InPlace' }
  | { kind: 'PowerOn' }
  | { kind: 'Confirm' }
  | { kind: 'Wait'; reason: string; message: string };

/**
 * The step for a provisioned machine's VM. Pure. A VM VCD did not answer for is never taken as
 * gone here: it is to be confirmed ({@link decideGone}).
 */
export function decideDrift(vm: DriftSeen | undefined): DriftStep {
  if (!vm) return { kind: 'Confirm' };
  if (vm.busy) return { kind: 'Wait', reason: 'VMBusy', message: 'a task runs on the VM' };
  if (vm.status === VmStatus.PoweredOn) return { kind: 'InPlace' };
  if (vm.status === VmStatus.PoweredOff) return { kind: 'PowerOn' };
  return { kind: 'Wait', reason: 'VMState', message: `VM status ${vm.status}` };
}

/** What a fresh read of a place found: it was denied (403/404), or it was read and does or does not hold the thing. */
export type Sight = 'holds' | 'lacks' | 'unreadable';

/** The confirming reads after a VM read answered 403/404. */
export interface GoneCheck {
  /** The VDC, read afresh: does it list the cluster's vApp? */
  vdc: Sight;
  /** The cluster's vApp, when it was read: does it hold the VM? */
  vapp?: Sight;
}

/** What a denied VM read comes to: gone, or only out of the session's sight. */
export type GoneStep = { kind: 'Gone' } | { kind: 'Unreadable'; message: string };

/**
 * Whether a VM VCD answered 403/404 for is gone. Pure. Gone only on a successful read that proves
 * it: the vApp read and without the VM, or the VDC read and without the vApp. Anything else (the
 * VDC or vApp denied, or a vApp that still holds the VM) is a session that cannot see it.
 */
export function decideGone(c: GoneCheck): GoneStep {
  if (c.vapp === 'lacks' || c.vdc === 'lacks') return { kind: 'Gone' };
  const what =
    c.vapp === 'holds'
      ? 'its vApp still holds it'
      : c.vdc === 'unreadable'
        ? 'its VDC is denied too'
        : 'its vApp is denied too';
  return {
    kind: 'Unreadable',
    message: `VCD denies the VM and ${what}: the credentials may have lost rights`,
  };
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
