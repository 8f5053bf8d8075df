/**
 * A group's failure policy. `Halt` (the default): a failed node stops the group from granting
 * anything new until it is cleared. `SetAside`: failed nodes are set aside, one by one (by name)
 * while at most `maxFailed` are: a set-aside node keeps its failure marker, loses its grant and
 * hook labels, and is out of its group (outside the budget and the queue, never granted; its agent
 * keeps it cordoned) until an administrator clears it; the group carries on. The failure beyond
 * `maxFailed` halts the group as `Halt` would: a bad update still stops the rollout.
 */
import { coordinatorKeys } from '@capstan/reboot-protocol';
import { resolveMaxFailed } from '../api/budget.js';
import { withdrawCycle } from './clear-failure.js';
import type { Finding } from './finding.js';
import type { GroupPolicy } from './group-policy.js';
import type { NodeDraft } from './node-state.js';
import { settle } from './reboot-cycle.js';

/** The failed nodes of a group after its policy applied. */
export interface FailureOutcome {
  /** Failed nodes not set aside: the group is halted while there is one. */
  halting: string[];
  /** Nodes set aside, this round's included. */
  setAside: string[];
}

/** Sets a failed node aside: its cycle withdrawn, its marker kept. */
function setAside(draft: NodeDraft, group: GroupPolicy): void {
  draft.setAnnotation(coordinatorKeys.setAside, draft.annotations[coordinatorKeys.failed] ?? '');
  withdrawCycle(draft, group);
  draft.record('SetAside');
}

/** Applies the group's failure policy to its settled drafts (editing those it sets aside). */
export function applyFailurePolicy(
  group: GroupPolicy,
  drafts: readonly NodeDraft[],
  findings: Finding[],
): FailureOutcome {
  const failed = drafts.filter((d) => d.facts().failed);
  const aside = failed.filter((d) => d.facts().setAside);
  const halting = failed.filter((d) => !d.facts().setAside).sort((a, b) => (a.name < b.name ? -1 : 1));
  if (group.spec.onFailure === 'SetAside') {
    const limit = resolveMaxFailed(group.spec.maxFailed, drafts.length);
    while (halting.length > 0 && aside.length < limit) {
      const draft = halting.shift() as NodeDraft;
      setAside(draft, group);
      aside.push(draft);
    }
  }
  for (const d of aside) {
    findings.push({
      kind: 'NodeSetAside',
      severity: 'Warning',
      node: d.name,
      group: group.name,
      message: `node ${d.name} is set aside (${d.annotations[coordinatorKeys.setAside] ?? ''}): out of group ${group.name} until ${coordinatorKeys.clearFailure} is set on it`,
    });
  }
  return { halting: halting.map((d) => d.name), setAside: aside.map((d) => d.name).sort() };
}

/**
 * Every group's failure policy, before any group serves its queue (a node set aside this round
 * keeps no other group waiting); the drafts set aside are settled again, so a plan of the result
 * writes nothing.
 */
export function applyFailurePolicies(
  groups: readonly GroupPolicy[],
  drafts: ReadonlyMap<string, readonly NodeDraft[]>,
  now: number,
  findings: Finding[],
): Map<string, FailureOutcome> {
  const outcomes = new Map<string, FailureOutcome>();
  for (const g of groups) {
    const list = drafts.get(g.name) ?? [];
    const outcome = applyFailurePolicy(g, list, findings);
    for (const d of list) if (outcome.setAside.includes(d.name)) settle(d, g, now, findings);
    outcomes.set(g.name, outcome);
  }
  return outcomes;
}
