/**
 * The per-node rules of the reboot cycle: everything the planner decides about one node without
 * looking at the others (requests, revocation, grant records, verification, release, return,
 * timeouts). Budget, order, windows and fairness are group decisions, made in `plan.ts`.
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
import { isUsableBootId, type NodeDraft } from './node-state.js';
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

/** One rule application; true when it edited the draft. */
function step(
  draft: NodeDraft,
  group: GroupPolicy,
  now: number,
  findings: Finding[],
  gates: GroupGateFacts | undefined,
): boolean {
  const f = draft.facts();
  const labels = draft.protocol.labels;
  switch (f.phase) {
    case 'Idle':
      if (removeIfPresent(draft, coordinatorKeys.hookTimedOutAt)) return true;
      if (removeIfPresent(draft, coordinatorKeys.requestedAt)) {
        draft.record('RequestWithdrawn');
        return true;
      }
      return false;
    case 'Asking':
      if (f.requestedAt === undefined) {
        draft.setAnnotation(coordinatorKeys.requestedAt, formatTimestamp(now));
        draft.record('Requested');
        return true;
      }
      return false;
    case 'Scheduled':
      if (!f.asking) {
        // Revocation: the node stopped asking before its grant.
        draft.removeLabel(labels.beforeReboot);
        draft.removeAnnotations(beforeHooksOf(draft, group));
        removeIfPresent(draft, coordinatorKeys.requestedAt);
        removeIfPresent(draft, coordinatorKeys.hookWaitSince);
        draft.record('Revoked');
        return true;
      }
      if (f.requestedAt === undefined) {
        draft.setAnnotation(coordinatorKeys.requestedAt, formatTimestamp(now));
        draft.record('Requested');
        return true;
      }
      // Bounded whatever it waits for: its hooks, a health gate, its group's gate.
      return beforeHooksDeadline(draft, group, now, findings);
    case 'Granted': {
      let changed = false;
      if (draft.labels[labels.beforeReboot] !== undefined) {
        draft.removeLabel(labels.beforeReboot);
        changed = true;
      }
      changed = removeIfPresent(draft, coordinatorKeys.requestedAt) || changed;
      if (f.grantedAt === undefined || (f.grantedBootId === undefined && isUsableBootId(draft.node.bootID))) {
        // A grant we have no (usable) record of: another coordinator's, an admin's, or garbage.
        // Adopt it from now on; fencing to the current boot ID fails closed (a reboot that already
        // happened is not verified, and the grant times out into a failure a human looks at).
        if (f.grantedAt === undefined) draft.setAnnotation(coordinatorKeys.grantedAt, formatTimestamp(now));
        if (f.grantedBootId === undefined && isUsableBootId(draft.node.bootID)) {
          draft.setAnnotation(coordinatorKeys.grantedBootId, draft.node.bootID);
        }
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
      if (f.grantedBootId === undefined) {
        findings.push({
          kind: 'MissingBootID',
          severity: 'Warning',
          node: draft.name,
          group: group.name,
          message: `node ${draft.name} is granted but reports no boot ID; its reboot cannot be verified`,
        });
      }
      const verified =
        f.grantedBootId !== undefined &&
        isUsableBootId(draft.node.bootID) &&
        draft.node.bootID !== f.grantedBootId &&
        f.ready &&
        !f.inProgress &&
        !f.needed;
      if (verified) {
        draft.setLabel(labels.afterReboot, TRUE);
        draft.removeAnnotations(group.afterHooks);
        draft.setAnnotation(coordinatorKeys.hookWaitSince, formatTimestamp(now));
        draft.record('RebootVerified');
        return true;
      }
      if (!f.failed && f.grantedAt !== undefined && now - f.grantedAt >= group.grantTimeoutMs) {
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
      return changed;
    }
    case 'AfterHooks': {
      let changed = false;
      if (draft.labels[labels.beforeReboot] !== undefined) {
        draft.removeLabel(labels.beforeReboot);
        changed = true;
      }
      changed = removeIfPresent(draft, coordinatorKeys.requestedAt) || changed;
      if (hooksPassed(draft, group.afterHooks)) {
        draft.withdrawRebootOk();
        draft.removeLabel(labels.afterReboot);
        draft.removeAnnotations(group.afterHooks);
        draft.removeAnnotation(coordinatorKeys.hookWaitSince);
        draft.record('Released');
        return true;
      }
      return afterHooksDeadline(draft, group, now, findings) || changed;
    }
    case 'Returning':
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
  }
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
