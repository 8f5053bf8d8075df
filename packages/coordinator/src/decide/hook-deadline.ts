/**
 * Deadlines on the waits that hold a slot of the budget: a scheduled node not granted within the
 * group's `hookTimeout` (its before-reboot annotations, a health gate or its group's gate kept it
 * waiting) goes back to the end of the queue (nothing was rebooted: its slot is given to the next); a rebooted node
 * whose after-reboot annotations do not pass in time is marked failed (it rebooted, so the
 * failure policy decides). The wait is stamped when it starts (`hook-wait-since`); a wait found
 * without a stamp (an older coordinator started it) is stamped now.
 */
import { coordinatorKeys, formatTimestamp } from '@capstan/reboot-protocol';
import type { Finding } from './finding.js';
import { beforeHooksOf } from './fleetlock-hooks.js';
import type { GroupPolicy } from './group-policy.js';
import type { NodeDraft } from './node-state.js';

/** Stamps an unstamped wait; true when it edited the draft. */
function stampWait(draft: NodeDraft, now: number): boolean {
  if (draft.facts().hookWaitSince !== undefined) return false;
  draft.setAnnotation(coordinatorKeys.hookWaitSince, formatTimestamp(now));
  return true;
}

function overdue(draft: NodeDraft, group: GroupPolicy, now: number): boolean {
  const since = draft.facts().hookWaitSince;
  return since !== undefined && now - since >= group.hookTimeoutMs;
}

function missingHooks(draft: NodeDraft, hooks: readonly string[]): string {
  return hooks.filter((k) => draft.annotations[k] !== 'true').join(', ');
}

/** A scheduled node not granted yet: its wait stamped, or past its deadline sent to the back of the queue. */
export function beforeHooksDeadline(
  draft: NodeDraft,
  group: GroupPolicy,
  now: number,
  findings: Finding[],
): boolean {
  if (stampWait(draft, now)) return true;
  if (!overdue(draft, group, now)) return false;
  const hooks = beforeHooksOf(draft, group);
  const missing = missingHooks(draft, hooks);
  draft.removeLabel(draft.protocol.labels.beforeReboot);
  draft.removeAnnotations(hooks);
  draft.removeAnnotation(coordinatorKeys.hookWaitSince);
  // To the end of the queue: the nodes that waited behind it go first.
  draft.setAnnotation(coordinatorKeys.requestedAt, formatTimestamp(now));
  draft.setAnnotation(coordinatorKeys.hookTimedOutAt, formatTimestamp(now));
  draft.record('HookTimedOut');
  findings.push(hookTimedOutFinding(draft, group, missing));
  return true;
}

/** The finding of a before-reboot timeout, reported while `hook-timed-out-at` is on the node. */
export function hookTimedOutFinding(draft: NodeDraft, group: GroupPolicy, missing?: string): Finding {
  const what = missing ? ` (before-reboot annotations ${missing} not "true")` : '';
  return {
    kind: 'HookTimedOut',
    severity: 'Warning',
    node: draft.name,
    group: group.name,
    message: `node ${draft.name} was not granted within ${group.hookTimeoutMs / 1000}s of its schedule${what}; sent back to the queue at ${draft.annotations[coordinatorKeys.hookTimedOutAt] ?? ''}`,
  };
}

/**
 * A verified node still waiting for its after-reboot annotations (the caller checked they have
 * not all passed): stamped, or past its deadline marked failed.
 */
export function afterHooksDeadline(
  draft: NodeDraft,
  group: GroupPolicy,
  now: number,
  findings: Finding[],
): boolean {
  if (stampWait(draft, now)) return true;
  if (draft.facts().failed || !overdue(draft, group, now)) return false;
  markTimedOut(
    draft,
    group,
    now,
    findings,
    'AfterRebootHooksTimedOut',
    `after-reboot annotations (${missingHooks(draft, group.afterHooks)} not "true") did not pass within ${group.hookTimeoutMs / 1000}s of its verified reboot`,
  );
  return true;
}

/** Marks a rebooted node failed for a wait past its deadline (`reason` on the marker), with a finding. */
export function markTimedOut(
  draft: NodeDraft,
  group: GroupPolicy,
  now: number,
  findings: Finding[],
  reason: string,
  what: string,
): void {
  draft.setAnnotation(coordinatorKeys.failed, `${reason} ${formatTimestamp(now)}`);
  draft.record('MarkedFailed');
  findings.push({
    kind: 'HookTimedOut',
    severity: 'Warning',
    node: draft.name,
    group: group.name,
    message: `node ${draft.name}: ${what}; marked failed`,
  });
}
