/**
 * The one action that clears a failed node: an administrator sets `clear-failure` on it. The
 * coordinator removes the failure marker and everything that held the node's slot (the grant,
 * its records, the hook labels, annotations and stamps), then the request itself; a node that
 * still asks is stamped afresh and joins the end of its group's queue. Removing the marker alone
 * is not enough: the grant it left behind would be marked failed again at its next deadline.
 */
import { coordinatorKeys } from '@capstan/reboot-protocol';
import type { GroupPolicy } from './group-policy.js';
import type { NodeDraft } from './node-state.js';

/** Applies a pending `clear-failure`; true when it edited the draft. */
export function applyClearFailure(draft: NodeDraft, group: GroupPolicy): boolean {
  if (draft.annotations[coordinatorKeys.clearFailure] === undefined) return false;
  draft.removeAnnotation(coordinatorKeys.clearFailure);
  if (!draft.facts().failed) return true;
  const { labels } = draft.protocol;
  draft.removeAnnotation(coordinatorKeys.failed);
  draft.withdrawRebootOk();
  for (const key of [
    coordinatorKeys.grantedAt,
    coordinatorKeys.grantedBootId,
    coordinatorKeys.hookWaitSince,
    coordinatorKeys.hookTimedOutAt,
    coordinatorKeys.requestedAt,
  ]) {
    draft.removeAnnotation(key);
  }
  draft.removeAnnotations(group.hookKeys);
  draft.removeLabel(labels.beforeReboot);
  draft.removeLabel(labels.afterReboot);
  draft.record('FailureCleared');
  return true;
}
