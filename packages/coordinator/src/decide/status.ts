/**
 * A group's status as the planner reports it: counts, the queue, and the conditions (`Valid`,
 * `Halted`, `WindowOpen`, and `Degraded` from the warnings of the round). Transition times are
 * the reconciler's business: it keeps them across rounds.
 */
import type { QueueEntry, RebootGroupCondition, RebootGroupStatus } from '../api/reboot-group.js';
import type { Finding } from './finding.js';
import { CLEAR_HINT } from './gate.js';
import type { GroupPolicy } from './group-policy.js';
import type { HealthGateState } from './health-gates.js';
import type { NodeDraft } from './node-state.js';

/** What a group's status is computed from, after its queue was served. */
export interface StatusInput {
  group: GroupPolicy;
  drafts: readonly NodeDraft[];
  budget: number;
  /** Every failed node, set aside or not. */
  failed: readonly string[];
  /** Failed nodes not set aside: the group is halted. */
  halting: readonly string[];
  setAside: readonly string[];
  windowOpen: boolean;
  /** Whether a blackout keeps the calendar closed now. */
  inBlackout?: boolean;
  queue: QueueEntry[];
  /** The group's Prometheus and conditions gates as read this round, if it has any. */
  gates?: readonly HealthGateState[];
}

function condition(type: string, status: boolean, reason: string, message: string): RebootGroupCondition {
  return { type, status: status ? 'True' : 'False', reason, message };
}

/** The status of one group (without `Degraded`, which needs every finding of the round). */
export function groupStatusOf({
  group: g,
  drafts,
  budget,
  failed,
  halting,
  setAside,
  windowOpen,
  inBlackout = false,
  queue,
  gates,
}: StatusInput): RebootGroupStatus {
  const finals = drafts.map((d) => d.facts());
  const problems = g.problems.map((p) => `${p.path}: ${p.message}`);
  const windows = (g.spec.windows?.length ?? 0) + (g.spec.cronWindows?.length ?? 0);
  return {
    nodes: drafts.length,
    asking: finals.filter((f) => f.asking).length,
    inFlight: finals.filter((f) => f.inFlight).length,
    unavailable: finals.filter((f) => f.counts).length,
    maxUnavailable: budget,
    rebooted: finals.filter((f) => f.rebootedAt !== undefined).length,
    failed: failed.length,
    setAside: setAside.length,
    windowOpen,
    queue,
    ...(gates && gates.length > 0 ? { gates: gates.map((h) => ({ ...h })) } : {}),
    conditions: [
      problems.length > 0
        ? condition('Valid', false, 'InvalidSpec', problems.join('; '))
        : condition('Valid', true, 'Valid', 'the spec is valid'),
      halting.length > 0
        ? condition('Halted', true, 'NodeFailed', `failed: ${halting.join(', ')}; ${CLEAR_HINT} and resume`)
        : condition(
            'Halted',
            false,
            'NoFailures',
            setAside.length > 0
              ? `set aside: ${setAside.join(', ')} (${CLEAR_HINT})`
              : 'no node is marked failed',
          ),
      condition(
        'WindowOpen',
        windowOpen,
        inBlackout ? 'Blackout' : windows === 0 ? 'NoWindows' : windowOpen ? 'InsideWindow' : 'OutsideWindow',
        inBlackout
          ? 'in a blackout: nothing new starts'
          : windows === 0
            ? 'the group has no windows: always open'
            : windowOpen
              ? 'a window is open'
              : 'no window is open',
      ),
    ],
  };
}

/**
 * `Degraded`: the warnings about the group or its nodes, except those its other conditions carry
 * already (an invalid spec, failed nodes).
 */
export function degradedCondition(
  group: string,
  findings: readonly Finding[],
  membership: Readonly<Record<string, string>>,
): RebootGroupCondition {
  const mine = findings.filter(
    (f) =>
      f.severity === 'Warning' &&
      f.kind !== 'InvalidGroup' &&
      f.kind !== 'NodeFailed' &&
      f.kind !== 'NodeSetAside' &&
      (f.group === group || (f.group === undefined && f.node !== undefined && membership[f.node] === group)),
  );
  if (mine.length === 0) return condition('Degraded', false, 'NoFindings', 'nothing to report');
  const kinds = [...new Set(mine.map((f) => f.kind))];
  const shown = mine
    .slice(0, 5)
    .map((f) => f.message)
    .join('; ');
  return condition(
    'Degraded',
    true,
    kinds.length === 1 ? (kinds[0] as string) : 'SeveralFindings',
    shown + (mine.length > 5 ? `; and ${mine.length - 5} more` : ''),
  );
}
