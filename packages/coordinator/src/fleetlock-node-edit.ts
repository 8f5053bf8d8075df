/**
 * The FleetLock server's writes to a node: a conditional read-modify-write of its annotations
 * (and, for the cordon the coordinator makes for an agentless client, `spec.unschedulable`),
 * retried on conflicts, each recorded as the server's own so a cache that has not seen it yet is
 * not trusted about that node.
 */
import { type Client, type Clock, conditionalMergePatch, isConflict, isNotFound } from '@capstan/runtime';
import { Node } from '@capstan/runtime/client';
import type { OwnWrites } from './fleetlock-clients.js';
import { FleetLockRefusal } from './fleetlock-request.js';

const WRITE_ATTEMPTS = 5;

/** Edits to one node: annotations (`null` removes), and optionally its cordon. */
export interface NodeEdit {
  annotations: Record<string, string | null>;
  unschedulable?: boolean;
}

/** What an edit is decided from: the node as read now; `undefined` changes nothing. */
export type NodeChange = (node: Node) => NodeEdit | undefined;

/** Applies `change` to the node named `name`, conditional on what it read; a gone node is a 404 refusal. */
export async function editNode(
  deps: { client: Client; clock: Clock; writes: OwnWrites },
  name: string,
  change: NodeChange,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    let node: Node;
    try {
      node = await deps.client.get(Node, { name }, { direct: true });
    } catch (err) {
      if (isNotFound(err))
        throw new FleetLockRefusal(404, { kind: 'failed_node_lookup', value: `node ${name} is gone` });
      throw err;
    }
    const edit = change(node);
    if (!edit) return;
    try {
      const spec = edit.unschedulable === undefined ? {} : { spec: { unschedulable: edit.unschedulable } };
      const body = conditionalMergePatch(
        node.metadata.resourceVersion,
        { annotations: edit.annotations },
        spec,
      );
      deps.writes.begin(name, deps.clock.now());
      const written = await deps.client.patch(Node, { name }, 'merge', body);
      deps.writes.applied(name, written.metadata.resourceVersion, deps.clock.now());
      return;
    } catch (err) {
      if (!isConflict(err) || attempt + 1 >= WRITE_ATTEMPTS) throw err;
    }
  }
}
