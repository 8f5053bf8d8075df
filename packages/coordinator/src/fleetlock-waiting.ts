/**
 * FleetLock clients told to wait. A refused pre-reboot withdraws its request from the node (a
 * client that went away must not be granted later, time out and halt its group), so the node's
 * own request time goes with it; the server remembers when each client first asked and writes
 * that time with its next request, so a client that keeps asking keeps its place in the FIFO
 * queue. The memory is the server's only (a restart loses places, never safety) and forgets a
 * client that has not asked for {@link FORGET_AFTER_MS}, once granted, or at steady-state.
 */

/** A client silent this long starts at the end of the queue again: 1 hour. */
export const FORGET_AFTER_MS = 60 * 60_000;

/** When each waiting client first asked, and when it last did. */
export class WaitingClients {
  private readonly asked = new Map<string, { first: number; last: number }>();

  /** Records a pre-reboot by `id` at `now`; returns when this client first asked. */
  ask(id: string, now: number): number {
    this.prune(now);
    const entry = this.asked.get(id);
    if (entry) {
      entry.last = now;
      return entry.first;
    }
    this.asked.set(id, { first: now, last: now });
    return now;
  }

  /** The client holds the lock, or released it: its next request is a new one. */
  forget(id: string): void {
    this.asked.delete(id);
  }

  private prune(now: number): void {
    for (const [id, entry] of this.asked) if (now - entry.last >= FORGET_AFTER_MS) this.asked.delete(id);
  }
}
