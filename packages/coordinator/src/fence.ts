/**
 * The grant fence: what makes budget-consuming writes safe when two coordinators overlap (a
 * restart whose predecessor still has a write in flight, two leaders during a lease hand-over).
 *
 * Conditional writes on a node (its resourceVersion) stop a coordinator from acting on a stale view
 * of THAT node, but a grant is decided from every node of a group: two coordinators whose snapshots
 * differ elsewhere (a node paused in one, Ready in the other) could each take the last slot on a
 * different node, and both writes would pass their own precondition. So every write that takes a
 * slot is serialised through one Lease, by compare-and-swap on the Lease's resourceVersion:
 *
 * 1. {@link GrantFence.begin}: read the Lease. If it names a pending write (node + the node's
 *    resourceVersion the writer planned from) that could still land — the node is still at that
 *    resourceVersion — poison it: bump the node (a conditional write of our own), so the pending
 *    write fails its precondition. Either way, from now on that write has landed or never will.
 * 2. The caller lists fresh from the API server (after step 1) the nodes of every group where its
 *    cached plan takes a slot and of every group ordered before them, and plans again; it takes
 *    slots only in those groups (a budget counts one group's nodes, and a group waits for those
 *    ordered before it: `decide/fresh-groups.ts`).
 * 3. {@link GrantFence.claim} before each slot-taking write: CAS the Lease from the version read in
 *    step 1 (or the previous claim) to record the write as pending. A CAS that fails means another
 *    coordinator claimed in between: the plan may be stale; stop and plan again.
 * 4. The conditional write on the node.
 *
 * Step 1 needs no read when this process wrote the Lease last and has had the server's answer to
 * the write that Lease names (landed, or failed its precondition, or refused: it never lands later)
 * — {@link GrantFence.answered}. `begin` then hands back that Lease as the token: if it is still the
 * Lease's current version, its pending write is settled and every claim before it was settled by
 * the `begin` before that claim; if anyone wrote the Lease since, step 3's CAS from it fails, so no
 * slot is taken from a list that may predate their write. A write with no answer (a timeout, a
 * dropped connection) may still land, so the next `begin` reads the Lease and settles it as above.
 *
 * Every claim that succeeds was preceded by a `begin` that resolved the previous claim, and the
 * fresh list of its group came after it, so each slot is taken from a snapshot of its group that
 * holds every slot taken there before.
 */

import { CAPSTAN_PREFIX } from '@capstan/reboot-protocol';
import { type Client, type Clock, isAlreadyExists, isConflict, isNotFound } from '@capstan/runtime';
import { Lease, Node } from '@capstan/runtime/client';
import { isRefusal } from './write-refusals.js';

/** Annotation on the fence Lease naming the write in flight: `{"node":..., "resourceVersion":...}`. */
export const FENCE_PENDING_KEY = `${CAPSTAN_PREFIX}pending-grant`;
/** Annotation a coordinator writes on a node to make a stale pending write fail its precondition. */
export const FENCE_POISON_KEY = `${CAPSTAN_PREFIX}fenced`;
/** Default name of the fence Lease. */
export const DEFAULT_FENCE_NAME = 'capstan-coordinator-fence';

/** A position in the fence's history (the Lease as read or last written): claims start from here. */
export interface FenceToken {
  lease: Lease;
}

interface Pending {
  node: string;
  resourceVersion: string;
}

function parsePending(raw: string | undefined): Pending | undefined {
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<Pending>;
    return typeof v.node === 'string' && typeof v.resourceVersion === 'string'
      ? { node: v.node, resourceVersion: v.resourceVersion }
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Outcome of a fence step; `conflict` means: plan again; `refused` names a node whose pending
 * write could not be poisoned because the server refuses writes to it.
 */
export type FenceOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; conflict: true }
  | { ok: false; conflict: false; refused: string };

/** The fence Lease of one coordinator deployment. */
export class GrantFence {
  /** The Lease as this process last wrote it, once the write it names (if any) was answered. */
  private settled: Lease | undefined;
  /** The Lease as this process's last claim wrote it, until that claim's write is answered. */
  private claimed: Lease | undefined;

  constructor(
    private readonly client: Client,
    private readonly clock: Clock,
    readonly namespace: string,
    readonly name: string = DEFAULT_FENCE_NAME,
  ) {}

  /** Step 1: read the fence and settle the pending write, if any. */
  async begin(): Promise<FenceOutcome<FenceToken>> {
    // Our own last write to the Lease, answered: nothing to settle (the header's step 1).
    if (this.settled) return { ok: true, value: { lease: this.settled } };
    const key = { namespace: this.namespace, name: this.name };
    let lease: Lease;
    try {
      lease = await this.client.get(Lease, key, { direct: true });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        lease = await this.client.create(Lease, { metadata: { ...key }, spec: {} });
      } catch (e) {
        if (isAlreadyExists(e)) return { ok: false, conflict: true };
        throw e;
      }
    }
    const pending = parsePending(lease.metadata.annotations?.[FENCE_PENDING_KEY]);
    if (pending) {
      let node: Node | undefined;
      try {
        node = await this.client.get(Node, { name: pending.node }, { direct: true });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      if (node && node.metadata.resourceVersion === pending.resourceVersion) {
        // The claimed write has not landed and still could: make sure it never does.
        try {
          await this.client.patch(Node, { name: pending.node }, 'merge', {
            metadata: {
              resourceVersion: pending.resourceVersion,
              annotations: { [FENCE_POISON_KEY]: pending.resourceVersion },
            },
          });
        } catch (err) {
          // Conflict: the node moved on by itself; the pending write cannot land either way.
          // Refused (an admission policy, a size limit): the write may still land, so no slot
          // may be taken (fail closed) while everything that frees budget goes on.
          if (isRefusal(err)) return { ok: false, conflict: false, refused: pending.node };
          if (!isConflict(err) && !isNotFound(err)) throw err;
        }
      }
    }
    return { ok: true, value: { lease } };
  }

  /**
   * Clears the pending write claimed since `token` because the server refused it: a refused
   * write never lands, so nothing needs poisoning. A failed CAS is a conflict (plan again).
   */
  async settleRefused(token: FenceToken): Promise<FenceOutcome<FenceToken>> {
    const { lease } = token;
    const annotations = { ...lease.metadata.annotations };
    delete annotations[FENCE_PENDING_KEY];
    this.forget();
    try {
      const written = await this.client.update(Lease, {
        ...lease,
        metadata: { ...lease.metadata, annotations },
      });
      this.settled = written;
      return { ok: true, value: { lease: written } };
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return { ok: false, conflict: true };
      throw err;
    }
  }

  /**
   * Tells the fence the server answered the write claimed as `token` (it landed, failed its
   * precondition, or was refused): it can no longer land later, so the next {@link begin} need
   * not read the Lease while that claim is its last version.
   */
  answered(token: FenceToken): void {
    if (this.claimed !== undefined && token.lease === this.claimed) this.settled = this.claimed;
    this.claimed = undefined;
  }

  /** Drops what this process knows of the Lease: the next {@link begin} reads it. */
  private forget(): void {
    this.settled = undefined;
    this.claimed = undefined;
  }

  /**
   * Step 3: records `node@resourceVersion` as the pending write, if nobody claimed since `token`
   * (an update carrying the token's resourceVersion: a compare-and-swap).
   */
  async claim(token: FenceToken, node: string, resourceVersion: string): Promise<FenceOutcome<FenceToken>> {
    const { lease } = token;
    this.forget();
    try {
      const written = await this.client.update(Lease, {
        ...lease,
        metadata: {
          ...lease.metadata,
          annotations: {
            ...lease.metadata.annotations,
            [FENCE_PENDING_KEY]: JSON.stringify({ node, resourceVersion, at: this.clock.now() }),
          },
        },
      });
      this.claimed = written;
      return { ok: true, value: { lease: written } };
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return { ok: false, conflict: true };
      throw err;
    }
  }
}
