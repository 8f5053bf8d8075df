/**
 * When a read of the cluster's vApp that a sibling machine made may stand for a machine's own. Every
 * machine of a cluster reads the one vApp, and the read holds every VM: the 25 machines of a batch
 * each read it once their recompose ended, each to find its own VM in the same state. A shared
 * read answers for a machine only as its own GET would have, made at the read's start:
 *  - it began after the last thing the machine knows changed its VM (its task seen ended, or else
 *    the start of this reconcile), so no change of its own is missing from it;
 *  - it holds the machine's VM: a machine without one reads for itself, so a create (the write that
 *    names VMs for the whole vApp) always follows a fresh GET; and a machine being deleted reads for
 *    itself, as its decision looks at the other VMs too;
 *  - it is young (`maxAgeMs`), so what others (people, VCD) changed is missed no longer than that.
 * Another machine's writes between the read and now touch only that machine's VM; a vApp-wide write
 * of ours drops the read (see `machine/vapp-reads.ts`).
 */

/** What the machine needs of a read of its vApp. */
export interface ReadNeed {
  deleting: boolean;
  /** The read must have begun at or after this (ms): the machine's task seen ended, or its reconcile's start. */
  freshAfter: number;
  /** The shared read holds the machine's VM (by name). */
  vmInRead: boolean;
  now: number;
  maxAgeMs: number;
}

/** Whether a read begun at `startedAt` may stand for the machine's own GET (see the module). */
export function mayShareRead(startedAt: number, need: ReadNeed): boolean {
  if (need.deleting || !need.vmInRead) return false;
  return startedAt >= need.freshAfter && need.now - startedAt <= need.maxAgeMs;
}
