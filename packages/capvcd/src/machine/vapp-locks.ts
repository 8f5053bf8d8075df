/**
 * What this process knows locks each vApp: the tasks its machines started there (or found still
 * running) and have not yet seen end. Machines of one cluster share one vApp, and while one VM is
 * recomposed in, every other machine's look at the vApp can only find "busy": with five machines
 * those looks were over a third of their VCD calls, and more the slower VCD ran. A machine whose
 * look {@link lookWouldWait} skips the GET and comes back later.
 *
 * Only looks are skipped, never decided on: every write still follows a fresh GET, so a lock
 * believed wrongly costs time, never safety. A lock its machine does not renew by its next poll
 * (plus {@link LOCK_GRACE_MS}) is forgotten, as when the machine was deleted meanwhile.
 */
import type { Clock } from '@capstan/runtime';
import { type LockScope, lockScope, lookWouldWait, type MachineStep } from '../decide/machine.js';

/** How long past its machine's next poll a lock is still believed (a queue may run late). */
export const LOCK_GRACE_MS = 5_000;

interface Lock {
  scope: LockScope;
  /** The task's href, when known: every machine that recorded it is freed when it is seen ended. */
  task?: string;
  /** Believed until then: the holder's next poll, plus grace. */
  until: number;
}

/** The locks of one process's tasks on its vApps, and which machines are known to have no VM. */
export class VAppLocks {
  /** vApp key → machine key → the lock its running task holds. */
  private readonly locks = new Map<string, Map<string, Lock>>();
  /** Machines whose last look found no VM of their own. */
  private readonly withoutVm = new Set<string>();

  constructor(private readonly clock: Clock) {}

  /** `machine`'s task for `operation` (a step kind, its href `task`) runs on `vapp`; its machine looks again in `pollMs`. */
  hold(vapp: string, machine: string, operation: string, pollMs: number, task?: string): void {
    let held = this.locks.get(vapp);
    if (!held) {
      held = new Map();
      this.locks.set(vapp, held);
    }
    const until = this.clock.now() + pollMs + LOCK_GRACE_MS;
    held.set(machine, { scope: lockScope(operation), until, ...(task ? { task } : {}) });
  }

  /**
   * The task at `href` was seen ended: no machine that recorded it holds a lock for it any more (a
   * batch's members share one recompose task, and each would else hold it until its own poll).
   */
  ended(vapp: string, href: string): void {
    const held = this.locks.get(vapp);
    if (!held) return;
    for (const [machine, lock] of held) if (lock.task === href) held.delete(machine);
    if (held.size === 0) this.locks.delete(vapp);
  }

  /** `machine` has no running task on `vapp` (any more). */
  release(vapp: string, machine: string): void {
    const held = this.locks.get(vapp);
    if (!held?.delete(machine)) return;
    if (held.size === 0) this.locks.delete(vapp);
  }

  /** Remembers what `machine`'s look decided: whether it found no VM of its own. */
  decided(machine: string, step: MachineStep, deleting: boolean): void {
    const waitsToCreate = !deleting && step.kind === 'WaitForVCD' && step.reason === 'VAppBusy';
    if (waitsToCreate) this.withoutVm.add(machine);
    else this.withoutVm.delete(machine);
  }

  /** `machine` is gone (deleted, or provisioned and done with VCD): forget it. */
  forget(vapp: string, machine: string): void {
    this.release(vapp, machine);
    this.withoutVm.delete(machine);
  }

  /** Whether `machine`'s last look found no VM of its own. */
  knownWithoutVm(machine: string): boolean {
    return this.withoutVm.has(machine);
  }

  /** Whether `machine`'s look at `vapp` now could only find it busy (see {@link lookWouldWait}). */
  mustWait(vapp: string, machine: string, deleting: boolean): boolean {
    return lookWouldWait({
      deleting,
      knownWithoutVm: this.withoutVm.has(machine),
      othersLocks: this.othersLocks(vapp, machine),
    });
  }

  /** Whether no task of ours is believed to run on `vapp` (nor on any of its VMs). */
  idle(vapp: string): boolean {
    return this.othersLocks(vapp, '').length === 0;
  }

  /** Locks held on `vapp` by machines other than `machine`, past-due ones dropped. */
  private othersLocks(vapp: string, machine: string): LockScope[] {
    const held = this.locks.get(vapp);
    if (!held) return [];
    const now = this.clock.now();
    const scopes: LockScope[] = [];
    for (const [holder, lock] of held) {
      if (lock.until < now) held.delete(holder);
      else if (holder !== machine) scopes.push(lock.scope);
    }
    if (held.size === 0) this.locks.delete(vapp);
    return scopes;
  }

  /** vApps with a lock believed, and machines known to have no VM (for tests). */
  get size(): { vapps: number; withoutVm: number } {
    return { vapps: this.locks.size, withoutVm: this.withoutVm.size };
  }
}
