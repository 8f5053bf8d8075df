/**
 * A planned change to one node: exact annotation and label edits, conditional on the node's
 * resourceVersion. The reconciler applies the writes of a plan in order and stops at the first
 * one that fails (a conflict means the snapshot is stale: plan again). Writes that take a slot of
 * a budget come last, so any prefix of a plan keeps every budget.
 */
import type { NodeSnapshot } from './node-snapshot.js';

/** What a write does, for logs, events and tests. */
export type PlannedAction =
  | 'Requested'
  | 'RequestWithdrawn'
  | 'Scheduled'
  | 'Revoked'
  | 'Granted'
  | 'GrantAdopted'
  | 'RebootVerified'
  | 'Released'
  | 'Completed'
  | 'MarkedFailed'
  | 'HookTimedOut'
  | 'FailureCleared'
  | 'SetAside'
  | 'Normalized';

/** The edits to make on one node. */
export interface NodeWrite {
  node: string;
  /** Apply only if the node still has this resourceVersion. */
  resourceVersion: string;
  setAnnotations: Record<string, string>;
  removeAnnotations: string[];
  setLabels: Record<string, string>;
  removeLabels: string[];
  /**
   * True when the write moves the node into its group's count of unavailable nodes (it takes a
   * slot of the budget). Such writes are ordered after all others.
   */
  consumesBudget: boolean;
  actions: PlannedAction[];
}

function edit(
  values: Readonly<Record<string, string>>,
  set: Record<string, string>,
  remove: readonly string[],
): Record<string, string> {
  const out = { ...values };
  for (const k of remove) delete out[k];
  Object.assign(out, set);
  return out;
}

function nextResourceVersion(rv: string): string {
  return /^\d+$/.test(rv) ? String(Number(rv) + 1) : `${rv}'`;
}

/** The node after `write` (no precondition check); bumps the resourceVersion. */
export function applyWrite(node: NodeSnapshot, write: NodeWrite): NodeSnapshot {
  return {
    ...node,
    resourceVersion: nextResourceVersion(node.resourceVersion),
    annotations: edit(node.annotations, write.setAnnotations, write.removeAnnotations),
    labels: edit(node.labels, write.setLabels, write.removeLabels),
  };
}

/**
 * Applies `writes` in order the way the reconciler does: each only if its node exists with the
 * expected resourceVersion; the first that does not apply stops the rest. For tests and
 * simulations.
 */
export function applyWrites(nodes: readonly NodeSnapshot[], writes: readonly NodeWrite[]): NodeSnapshot[] {
  const out = [...nodes];
  for (const write of writes) {
    const i = out.findIndex((n) => n.name === write.node);
    const node = out[i];
    if (!node || node.resourceVersion !== write.resourceVersion) break;
    out[i] = applyWrite(node, write);
  }
  return out;
}
