/**
 * What the FleetLock server reads from the cache on each request, made cheap: which node a client
 * id designates (each cached node's ids computed once per object, not an HMAC per node and
 * request), and whether the cache has seen the server's own latest write to a node (until it has,
 * a decision about that node goes to the API server).
 *
 * Clients map to Nodes through `status.nodeInfo.machineID`: the id may be the raw machine ID, or
 * Zincati's app-specific ID derived from it (HMAC-SHA256 keyed by the machine ID over Zincati's app
 * ID, as `systemd-id128 machine-id -a de35106b6ec24688b63afddaa156679b` prints).
 */
import { createHmac } from 'node:crypto';
import type { Node } from '@capstan/runtime/client';
import { ListMemo } from './same-objects.js';

/** Zincati's application ID (systemd app-specific machine IDs). */
export const ZINCATI_APP_ID = 'de35106b6ec24688b63afddaa156679b';

/** Zincati's id for a machine ID (32 hex digits, dashes allowed); undefined when it is not one. */
export function zincatiId(machineID: string): string | undefined {
  const hex = machineID.replaceAll('-', '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return undefined;
  const mac = createHmac('sha256', Buffer.from(hex, 'hex'))
    .update(Buffer.from(ZINCATI_APP_ID, 'hex'))
    .digest();
  mac[6] = ((mac[6] as number) & 0x0f) | 0x40;
  mac[8] = ((mac[8] as number) & 0x3f) | 0x80;
  return mac.subarray(0, 16).toString('hex');
}

const normalizeId = (id: string): string => id.trim().replaceAll('-', '').toLowerCase();

/** The client ids that designate a machine: its machine ID and its Zincati id, normalised. */
function idsOfMachine(machineID: string | undefined): readonly string[] {
  if (!machineID) return [];
  const zincati = zincatiId(machineID);
  return zincati === undefined ? [normalizeId(machineID)] : [normalizeId(machineID), zincati];
}

/** Whether a FleetLock client id designates the node with this machine ID. */
export function clientMatchesMachine(clientId: string, machineID: string | undefined): boolean {
  return idsOfMachine(machineID).includes(normalizeId(clientId));
}

/**
 * Finds a client's node among the nodes read from the cache, through an index by client id. The
 * cache hands out deep-frozen objects and replaces one on every change, so the index stays valid
 * while the list holds the same objects (checked by identity, no HMAC), and each object's ids are
 * computed once and kept beside it (weakly). Unfrozen objects are read afresh every time.
 */
export class ClientDirectory {
  private readonly ids = new WeakMap<Node, readonly string[]>();
  /** The index of the list searched last (what {@link lookup} tries first). */
  private latest: Map<string, Node> | undefined;
  private readonly index = new ListMemo<Node, Map<string, Node>>((nodes) => {
    const byId = new Map<string, Node>();
    for (const n of nodes) for (const id of this.idsOf(n)) if (!byId.has(id)) byId.set(id, n);
    this.latest = byId;
    return byId;
  });

  /** The first node `clientId` designates, if any. */
  find(nodes: readonly Node[], clientId: string): Node | undefined {
    return this.index.of(nodes).get(normalizeId(clientId));
  }

  /**
   * The node `clientId` designates, without a list while the answer has not changed: the node found
   * last time, read again by name (`current`, one cache lookup), when the cache still holds it
   * designating the client; otherwise {@link find} in the whole list (`list`). So a known client
   * costs one lookup, not a list of the fleet. The one difference from `find`: of two nodes with
   * one machine ID (a misconfigured fleet), the one found first stays found while it keeps it.
   */
  async lookup(
    clientId: string,
    current: (name: string) => Promise<Node | undefined>,
    list: () => Promise<readonly Node[]>,
  ): Promise<Node | undefined> {
    const id = normalizeId(clientId);
    const name = this.latest?.get(id)?.metadata.name;
    if (name !== undefined) {
      const node = await current(name);
      if (node && Object.isFrozen(node) && this.idsOf(node).includes(id)) return node;
    }
    return this.find(await list(), clientId);
  }

  private idsOf(node: Node): readonly string[] {
    const known = this.ids.get(node);
    if (known) return known;
    const ids = idsOfMachine(node.status?.nodeInfo?.machineID as string | undefined);
    if (Object.isFrozen(node)) this.ids.set(node, ids);
    return ids;
  }
}

/** How long a write may stay unseen by the cache before the server stops waiting for it. */
const UNSEEN_FOR_AT_MOST_MS = 60_000;

/**
 * The server's own writes the cache has not shown yet, by node. While one is pending, what the
 * cache says about that node may predate it, so the server reads the node from the API server.
 */
export class OwnWrites {
  private readonly pending = new Map<string, { resourceVersion: string | undefined; since: number }>();

  /** A write to `node` is about to be sent (the cache is behind it from now on). */
  begin(node: string, now: number): void {
    this.pending.set(node, { resourceVersion: undefined, since: now });
  }

  /** The write was applied and the server answered with this resourceVersion. */
  applied(node: string, resourceVersion: string | undefined, now: number): void {
    this.pending.set(node, { resourceVersion, since: now });
  }

  /** Whether a write of ours to the node named `node` may still be unseen (no clock needed). */
  mayBeUnseen(node: string): boolean {
    return this.pending.has(node);
  }

  /**
   * Whether the cached `node` may predate a write of ours: one is in flight, or was applied and
   * the cache does not show its resourceVersion yet (at most {@link UNSEEN_FOR_AT_MOST_MS}).
   */
  unseen(node: Node, now: number): boolean {
    const name = node.metadata.name ?? '';
    const write = this.pending.get(name);
    if (!write) return false;
    const seen =
      write.resourceVersion !== undefined && node.metadata.resourceVersion === write.resourceVersion;
    if (seen || now - write.since > UNSEEN_FOR_AT_MOST_MS) {
      this.pending.delete(name);
      return false;
    }
    return true;
  }
}
