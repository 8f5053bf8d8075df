/**
 * Taking a failed node out of its reboot cycle. The one action that clears a failed node: an
 * administrator sets `clear-failure` on it; the coordinator removes the failure marker (and the
 * set-aside mark) and everything that held the node's slot (the grant, its records, the hook
 * labels, answers and stamps), then the request itself; a node that still asks is stamped afresh
 * and joins the end of its group's queue. Removing the marker alone is not enough: the grant it
 * left behind would be marked failed again at its next deadline. Setting a node aside
 * (`failure-policy.ts`) withdraws the same cycle state but keeps the marker.
 */
import { coordinatorKeys } from '@capstan/reboot-protocol';
import type { GroupPolicy } from './group-policy.js';
import type { NodeDraft } from './node-state.js';

/** Withdraws a node's cycle: its grant, grant records, request time, hook labels, answers and stamps. */
export function withdrawCycle(draft: NodeDraft, group: GroupPolicy): void {
  const { labels } = draft.protocol;
  draft.withdrawRebootOk();
  for (const key of [
    coordinatorKeys.grantedAt,
    coordinatorKeys.grantedBootId,
    coordinatorKeys.hookWaitSince,
    coordinatorKeys.hookTimedOutAt,
    coordinatorKeys.settlingSince,
    coordinatorKeys.requestedAt,
  ]) {
    draft.removeAnnotation(key);
  }
  draft.removeAnnotations(group.hookKeys);
  draft.removeLabel(labels.beforeReboot);
  draft.removeLabel(labels.afterReboot);
}

/** Applies a pending `clear-failure`; true when it edited the draft. */
export function applyClearFailure(draft: NodeDraft, group: GroupPolicy): boolean {
  if (draft.annotations[coordinatorKeys.clearFailure] === undefined) return false;
  draft.removeAnnotation(coordinatorKeys.clearFailure);
  if (!draft.facts().failed) return true;
  draft.removeAnnotation(coordinatorKeys.failed);
  draft.removeAnnotation(coordinatorKeys.setAside);
  withdrawCycle(draft, group);
  draft.record('FailureCleared');
  return true;
}
