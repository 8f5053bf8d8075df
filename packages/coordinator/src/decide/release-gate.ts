/**
 * The health gates again before a rebooted node's slot frees: a node back (Ready, schedulable) and
 * settled keeps its slot while a Prometheus or conditions gate of its group is closed or erroring,
 * so the next node is not granted into an unhealthy cluster. The hold is bounded: past the settle
 * time plus the group's `hookTimeout` the node is marked failed and its failure policy decides.
 */
import { coordinatorKeys, formatTimestamp } from '@capstan/reboot-protocol';
import type { Finding } from './finding.js';
import type { GroupPolicy } from './group-policy.js';
import { closedHealthGate, type GroupGateFacts } from './health-gates.js';
import { markTimedOut } from './hook-deadline.js';
import type { NodeDraft } from './node-state.js';

/** What the release gate decided for a returned, settled node. */
export type ReleaseVerdict = { release: true } | { release: false; changed: boolean };

/** Whether a returned, settled node may release its slot now (see the file comment). */
export function releaseGate(
  draft: NodeDraft,
  group: GroupPolicy,
  now: number,
  findings: Finding[],
  gates: GroupGateFacts | undefined,
): ReleaseVerdict {
  const closed = closedHealthGate(gates);
  if (!closed) return { release: true };
  const f = draft.facts();
  if (f.settlingSince === undefined) {
    // The hold's clock: with no settle time the node was never stamped.
    draft.setAnnotation(coordinatorKeys.settlingSince, formatTimestamp(now));
    return { release: false, changed: true };
  }
  if (f.failed || now - f.settlingSince < group.settleTimeMs + group.hookTimeoutMs)
    return { release: false, changed: false };
  markTimedOut(
    draft,
    group,
    now,
    findings,
    'GateClosedAfterReboot',
    `its group's gates stayed shut for ${group.hookTimeoutMs / 1000}s after its settle time (${closed.message})`,
  );
  return { release: false, changed: true };
}
