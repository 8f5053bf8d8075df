/**
 * The coordinator's own node writes that its cache has not shown yet (read-your-writes).
 *
 * A write that landed moved its node past the resourceVersion it was planned from; a cached node
 * still at that version is the cache lagging our own write. A grant planned from such a cache is
 * planned again from the API server under the fence (a Lease read and a list of every node) and
 * then finds nothing to do: the slot it wanted is the one we just gave. So a round whose cache is
 * behind our writes takes no slot and waits for the write's watch event, which brings it back.
 * The memory is bounded in time: a write the cache has not shown within {@link OWN_WRITE_WAIT_MS}
 * is forgotten, so a lost event costs one fenced read, never a stall.
 */

/** How long a round waits for the cache to show one of our writes before planning anyway. */
export const OWN_WRITE_WAIT_MS = 5_000;

interface Written {
  /** The resourceVersion the write was planned from (the node is past it once the write landed). */
  from: string;
  at: number;
}

/** A node as the check needs it: its name and resourceVersion. */
export interface VersionedNode {
  metadata: { name?: string; resourceVersion?: string };
}

/** Landed writes not yet seen in the cache, by node. */
export class OwnWrites {
  private readonly byNode = new Map<string, Written>();

  /** Records a landed write to `node` planned from its `from` resourceVersion. */
  landed(node: string, from: string, now: number): void {
    this.byNode.set(node, { from, at: now });
  }

  /**
   * Whether `nodes` (a cached list) still shows a node as it was before a write of ours landed.
   * Forgets writes the list has shown (the node moved on or is gone) and those older than the wait.
   */
  unseen(nodes: readonly VersionedNode[], now: number): boolean {
    if (this.byNode.size === 0) return false;
    const versions = new Map<string, string | undefined>();
    for (const n of nodes)
      if (n.metadata.name !== undefined) versions.set(n.metadata.name, n.metadata.resourceVersion);
    let behind = false;
    for (const [node, w] of this.byNode) {
      if (now - w.at >= OWN_WRITE_WAIT_MS || versions.get(node) !== w.from) this.byNode.delete(node);
      else behind = true;
    }
    return behind;
  }
}
