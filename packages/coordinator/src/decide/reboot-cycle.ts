/**
 * The per-node rules of the reboot cycle: everything the planner decides about one node without
 * looking at the others (requests, revocation, grant records, verification, release, return,
 * timeouts). Budget, order, windows and fairness are group decisions, made in `plan.ts`.
 *
 * One function per phase ({@link NodeFacts.phase} names it), applied until none edits the node:
 *
 *   Idle ─▶ Asking ─▶ Scheduled ─(granted)─▶ Granted ─(verified)─▶ AfterHooks ─(released)─▶ Returning ─▶ Idle
 *                        │                      │
 *              (revoked) ▼          (timed out) ▼
 *                       Idle        failed, counted until cleared
 */
import {
  AGENT_FAILURE_ANNOTATION,
  coordinatorKeys,
  type FailureReason,
  formatTimestamp,
  parseAgentFailure,
  TRUE,
} from '@capstan/reboot-protocol';
import { applyClearFailure } from './clear-failure.js';
import type { Finding } from './finding.js';
import { beforeHooksOf } from './fleetlock-hooks.js';
import type { GroupPolicy } from './group-policy.js';
import type { GroupGateFacts } from './health-gates.js';
import { afterHooksDeadline, beforeHooksDeadline, hookTimedOutFinding } from './hook-deadline.js';
import { isUsableBootId, type NodeDraft, type NodeFacts, type NodePhase } from './node-state.js';
import { releaseGate } from './release-gate.js';

/** Whether every annotation in `hooks` is `"true"` on the node (vacuously true for none). */
export function hooksPassed(draft: NodeDraft, hooks: readonly string[]): boolean {
  return hooks.every((k) => draft.annotations[k] === TRUE);
}

function removeIfPresent(draft: NodeDraft, key: string): boolean {
  if (draft.annotations[key] === undefined) return false;
  draft.removeAnnotation(key);
  return true;
}

/**
 * Why a timed-out grant failed, from what the node did: the agent's own failure (it drained or
 * tried to reboot, gave up and uncordoned) when it wrote one since the grant; the reboot not
 * verified when it is cordoned, in progress or on another boot; else the grant was not acted on.
 */
function failureReason(
  draft: NodeDraft,
  grantedAt: number,
  grantedBootId: string | undefined,
  inProgress: boolean,
): FailureReason {
  const agent = parseAgentFailure(draft.annotations[AGENT_FAILURE_ANNOTATION]);
  if (agent && agent.at >= grantedAt && (agent.reason === 'DrainFailed' || agent.reason === 'RebootFailed')) {
    return agent.reason;
  }
  const acted = inProgress || draft.node.unschedulable || draft.node.bootID !== grantedBootId;
  return acted ? 'RebootNotVerified' : 'GrantNotActedOn';
}

/** Whether a returned node has stayed Ready and schedulable for the group's settle time. */
function settled(draft: NodeDraft, group: GroupPolicy, now: number): boolean {
  if (group.settleTimeMs <= 0) return true;
  const since = draft.facts().settlingSince;
  return since !== undefined && now - since >= group.settleTimeMs;
}

/** Starts the settle time of a returned node (once); true when it edited the draft. */
function stampSettling(draft: NodeDraft, now: number): boolean {
  if (draft.facts().settlingSince !== undefined) return false;
  draft.setAnnotation(coordinatorKeys.settlingSince, formatTimestamp(now));
  return true;
}

/** What one rule application sees: the node's draft and facts, its group, the time, the round's gates. */
interface CycleInput {
  draft: NodeDraft;
  f: NodeFacts;
  group: GroupPolicy;
  now: number;
  /** Where a rule reports what a human should see; appended to. */
  findings: Finding[];
  gates: GroupGateFacts | undefined;
}

/** A phase's rule: true when it edited the draft (so the phase is named again). */
type PhaseRule = (input: CycleInput) => boolean;

/** Idle: leftovers of an ended wait or a withdrawn request go. */
const idle: PhaseRule = ({ draft }) => {
  if (removeIfPresent(draft, coordinatorKeys.hookTimedOutAt)) return true;
  if (removeIfPresent(draft, coordinatorKeys.requestedAt)) {
    draft.record('RequestWithdrawn');
    return true;
  }
  return false;
};

/** A request is stamped once, when first seen (its place in the queue). */
function stampRequest({ draft, f, now }: CycleInput): boolean {
  if (f.requestedAt !== undefined) return false;
  draft.setAnnotation(coordinatorKeys.requestedAt, formatTimestamp(now));
  draft.record('Requested');
  return true;
}

/** Scheduled: revoked when the node stopped asking before its grant; else bounded by its deadline. */
const scheduled: PhaseRule = (input) => {
  const { draft, f, group, now, findings } = input;
  if (!f.asking) {
    // Revocation: the node stopped asking before its grant.
    draft.removeLabel(draft.protocol.labels.beforeReboot);
    draft.removeAnnotations(beforeHooksOf(draft, group));
    removeIfPresent(draft, coordinatorKeys.requestedAt);
    removeIfPresent(draft, coordinatorKeys.hookWaitSince);
    draft.record('Revoked');
    return true;
  }
  if (stampRequest(input)) return true;
  // Bounded whatever it waits for: its hooks, a health gate, its group's gate.
  return beforeHooksDeadline(draft, group, now, findings);
};

/** A granted or releasing node keeps neither the before-reboot label nor its request stamp. */
function dropPreGrantMarks(draft: NodeDraft): boolean {
  let changed = false;
  if (draft.labels[draft.protocol.labels.beforeReboot] !== undefined) {
    draft.removeLabel(draft.protocol.labels.beforeReboot);
    changed = true;
  }
  return removeIfPresent(draft, coordinatorKeys.requestedAt) || changed;
}

/**
 * A grant we have no (usable) record of: another coordinator's, an admin's, or garbage. Adopt it
 * from now on; fencing to the current boot ID fails closed (a reboot that already happened is not
 * verified, and the grant times out into a failure a human looks at). True when it adopted.
 */
function adoptUnrecordedGrant({ draft, f, group, now, findings }: CycleInput): boolean {
  const fenceable = f.grantedBootId === undefined && isUsableBootId(draft.node.bootID);
  if (f.grantedAt !== undefined && !fenceable) return false;
  if (f.grantedAt === undefined) draft.setAnnotation(coordinatorKeys.grantedAt, formatTimestamp(now));
  if (fenceable) draft.setAnnotation(coordinatorKeys.grantedBootId, draft.node.bootID);
  draft.record('GrantAdopted');
  findings.push({
    kind: 'GrantAdopted',
    severity: 'Warning',
    node: draft.name,
    group: group.name,
    message: `node ${draft.name} has reboot-ok without a complete grant record; adopted as granted now`,
  });
  return true;
}

/** Rebooted: on another usable boot than the grant's, Ready, and neither rebooting nor needing one. */
function rebootVerified({ draft, f }: CycleInput): boolean {
  return (
    f.grantedBootId !== undefined &&
    isUsableBootId(draft.node.bootID) &&
    draft.node.bootID !== f.grantedBootId &&
    f.ready &&
    !f.inProgress &&
    !f.needed
  );
}

/** A grant not verified within the group's grant timeout is marked failed (once), saying why. */
function markTimedOutGrant({ draft, f, group, now, findings }: CycleInput): boolean {
  if (f.failed || f.grantedAt === undefined || now - f.grantedAt < group.grantTimeoutMs) return false;
  const reason = failureReason(draft, f.grantedAt, f.grantedBootId, f.inProgress);
  draft.setAnnotation(coordinatorKeys.failed, `${reason} ${formatTimestamp(now)}`);
  draft.record('MarkedFailed');
  findings.push({
    kind: 'GrantTimedOut',
    severity: 'Warning',
    node: draft.name,
    group: group.name,
    message: `node ${draft.name}: ${reason} within ${group.grantTimeoutMs / 1000}s of its grant; it keeps counting against group ${group.name} until ${coordinatorKeys.clearFailure} is set on it`,
  });
  return true;
}

/** Granted: adopt an unrecorded grant; verify the reboot (after-hooks start); or time it out. */
const granted: PhaseRule = (input) => {
  const { draft, f, group, now, findings } = input;
  const changed = dropPreGrantMarks(draft);
  if (adoptUnrecordedGrant(input)) return true;
  if (f.grantedBootId === undefined) {
    findings.push({
      kind: 'MissingBootID',
      severity: 'Warning',
      node: draft.name,
      group: group.name,
      message: `node ${draft.name} is granted but reports no boot ID; its reboot cannot be verified`,
    });
  }
  if (rebootVerified(input)) {
    draft.setLabel(draft.protocol.labels.afterReboot, TRUE);
    draft.removeAnnotations(group.afterHooks);
    draft.setAnnotation(coordinatorKeys.hookWaitSince, formatTimestamp(now));
    draft.record('RebootVerified');
    return true;
  }
  return markTimedOutGrant(input) || changed;
};

/** AfterHooks: released once every after-reboot hook passed; else bounded by its deadline. */
const afterHooks: PhaseRule = ({ draft, group, now, findings }) => {
  const changed = dropPreGrantMarks(draft);
  if (hooksPassed(draft, group.afterHooks)) {
    draft.withdrawRebootOk();
    draft.removeLabel(draft.protocol.labels.afterReboot);
    draft.removeAnnotations(group.afterHooks);
    draft.removeAnnotation(coordinatorKeys.hookWaitSince);
    draft.record('Released');
    return true;
  }
  return afterHooksDeadline(draft, group, now, findings) || changed;
};

/** Returning: completed once back, settled and through the release gate; overdue past the grant timeout. */
const returning: PhaseRule = ({ draft, f, group, now, findings, gates }) => {
  if (f.ready && !draft.node.unschedulable) {
    if (!settled(draft, group, now)) return stampSettling(draft, now);
    const verdict = releaseGate(draft, group, now, findings, gates);
    if (!verdict.release) return verdict.changed;
    removeIfPresent(draft, coordinatorKeys.settlingSince);
    draft.removeAnnotation(coordinatorKeys.grantedAt);
    draft.removeAnnotation(coordinatorKeys.grantedBootId);
    draft.setAnnotation(coordinatorKeys.rebootedAt, formatTimestamp(now));
    draft.record('Completed');
    return true;
  }
  // Back down during its settle time: it settles afresh once back.
  if (removeIfPresent(draft, coordinatorKeys.settlingSince)) return true;
  if (f.grantedAt !== undefined && now - f.grantedAt >= group.grantTimeoutMs) {
    findings.push({
      kind: 'ReturnOverdue',
      severity: 'Warning',
      node: draft.name,
      group: group.name,
      message: `node ${draft.name} rebooted but is not back (${f.unavailableBecause.join(', ')}); it keeps counting against group ${group.name}`,
    });
  }
  return false;
};

/** One function per phase, as the agent's `decide.ts` has. */
const RULES: Record<NodePhase, PhaseRule> = {
  Idle: idle,
  Asking: stampRequest,
  Scheduled: scheduled,
  Granted: granted,
  AfterHooks: afterHooks,
  Returning: returning,
};

/** One rule application: the node's phase named, its rule applied; true when it edited the draft. */
function step(
  draft: NodeDraft,
  group: GroupPolicy,
  now: number,
  findings: Finding[],
  gates: GroupGateFacts | undefined,
): boolean {
  const f = draft.facts();
  return RULES[f.phase]({ draft, f, group, now, findings, gates });
}

/**
 * Applies the per-node rules until none applies (a fixpoint), so that planning the result again
 * writes nothing.
 */
export function settle(
  draft: NodeDraft,
  group: GroupPolicy,
  now: number,
  findings: Finding[],
  gates?: GroupGateFacts,
): void {
  applyClearFailure(draft, group);
  for (let i = 0; i < 16 && step(draft, group, now, findings, gates); i++) {
    // each step edits the draft; the bound only guards against a rule cycle
  }
  // A node sent back to the queue keeps its group Degraded until it is granted or stops asking.
  const timedOut = draft.annotations[coordinatorKeys.hookTimedOutAt] !== undefined;
  if (timedOut && !draft.actions.includes('HookTimedOut')) findings.push(hookTimedOutFinding(draft, group));
}
