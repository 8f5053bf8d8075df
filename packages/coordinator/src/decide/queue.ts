/**
 * The queue of a group: its asking and scheduled nodes, first come first served by request time
 * (ties by name). Behind a closed gate every one waits. Otherwise, in order: an asking node is
 * scheduled while |D| < budget (the only step that takes a slot), and a scheduled node whose
 * before-reboot annotations are all `"true"` is granted. Whoever is not granted is told why.
 */
import { coordinatorKeys, formatTimestamp, TRUE } from '@capstan/reboot-protocol';
import type { QueueEntry, WaitReason } from '../api/reboot-group.js';
import type { DisruptionLedger } from './disruption-budgets.js';
import type { Finding } from './finding.js';
import { beforeHooksOf } from './fleetlock-hooks.js';
import type { Gate } from './gate.js';
import type { GroupPolicy } from './group-policy.js';
import { closedGate, type GroupGateFacts } from './health-gates.js';
import { isUsableBootId, type NodeDraft, type NodeFacts } from './node-state.js';
import { hooksPassed } from './reboot-cycle.js';

/** What one group's queue is served from. */
export interface QueueInput {
  group: GroupPolicy;
  drafts: readonly NodeDraft[];
  gate: Gate | undefined;
  budget: number;
  now: number;
  /** Nodes whose writes the API server refused, by node: passed over while backed off. */
  refused?: Readonly<Record<string, RefusedNode>>;
  /** The group's health gates, read for this round. */
  gates?: GroupGateFacts;
  /**
   * The round's disruptions (one ledger for every group): a slot taken here reserves the node's
   * drain; a `pdbAware` group passes over a node whose drain cannot go through now.
   */
  disruptions?: DisruptionLedger;
}

/** A node whose writes the API server refused (the reconciler's memory, an input of the plan). */
export interface RefusedNode {
  message: string;
  /** Its writes wait: the queue passes it over, so it takes no slot the others could use. */
  backedOff: boolean;
}

/** The queue served: who waits and why, and the drafts that took a slot this round (in order). */
export interface ServedQueue {
  queue: QueueEntry[];
  /** The drafts given a slot this round, first come first: their writes go after every other. */
  taking: NodeDraft[];
  findings: Finding[];
}

type Candidate = { draft: NodeDraft; facts: NodeFacts };

function byRequest(a: Candidate, b: Candidate): number {
  const ta = a.facts.requestedAt ?? Number.POSITIVE_INFINITY;
  const tb = b.facts.requestedAt ?? Number.POSITIVE_INFINITY;
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.draft.name < b.draft.name ? -1 : a.draft.name > b.draft.name ? 1 : 0;
}

function schedule(draft: NodeDraft, group: GroupPolicy, now: number): void {
  draft.setLabel(draft.protocol.labels.beforeReboot, TRUE);
  // The hook timeout counts from here: a slot is held from now on.
  draft.setAnnotation(coordinatorKeys.hookWaitSince, formatTimestamp(now));
  // Fresh hook answers for this cycle: a stale "true" from an earlier one must not count.
  draft.removeAnnotations(beforeHooksOf(draft, group));
  draft.record('Scheduled');
}

function grant(draft: NodeDraft, group: GroupPolicy, now: number): void {
  draft.setAnnotation(draft.protocol.annotations.rebootOk, TRUE);
  draft.setAnnotation(coordinatorKeys.grantedBootId, draft.node.bootID);
  draft.setAnnotation(coordinatorKeys.grantedAt, formatTimestamp(now));
  draft.removeLabel(draft.protocol.labels.beforeReboot);
  draft.removeAnnotations(beforeHooksOf(draft, group));
  draft.removeAnnotation(coordinatorKeys.requestedAt);
  draft.removeAnnotation(coordinatorKeys.hookWaitSince);
  draft.removeAnnotation(coordinatorKeys.hookTimedOutAt);
  draft.record('Granted');
}

/** Why a candidate waits before any slot or grant, and what a human should see about it. */
interface Hold {
  reason: WaitReason;
  message: string;
  finding?: { kind: Finding['kind']; message: string };
}

/**
 * Whether a candidate is held before it may take a slot or be granted, in order: the group's gate,
 * its refused writes, no boot ID to fence with, a reboot in progress without a grant, a closed
 * health gate, a drain a PodDisruptionBudget holds up (`pdbAware`).
 */
function holdOf({ draft, facts }: Candidate, input: QueueInput): Hold | undefined {
  const { gate, refused = {}, gates, disruptions } = input;
  if (gate) return gate;
  const refusal = refused[draft.name];
  if (refusal?.backedOff) return { reason: 'WritesRefused', message: refusal.message };
  if (!isUsableBootId(draft.node.bootID)) {
    return {
      reason: 'NoBootID',
      message: 'the node reports no status.nodeInfo.bootID',
      finding: {
        kind: 'MissingBootID',
        message: `node ${draft.name} asks for a reboot but reports no boot ID; a grant could not be fenced`,
      },
    };
  }
  if (facts.inProgress) {
    return {
      reason: 'RebootInProgressWithoutGrant',
      message: 'the agent says a reboot is in progress without a grant',
      finding: {
        kind: 'RebootInProgressWithoutGrant',
        message: `node ${draft.name} says a reboot is in progress but holds no grant`,
      },
    };
  }
  // Health gates, before a slot is taken and again before the grant (a scheduled node that
  // waits here is bounded by the hook timeout).
  const closed = closedGate(gates, draft.name);
  if (closed) return closed;
  // PDB-aware: a node whose drain a PodDisruptionBudget holds up takes no slot and is not
  // granted; the next one whose drain can go through goes first.
  const drainBlock = input.group.spec.pdbAware === true ? disruptions?.blockerOf(draft.name) : undefined;
  if (drainBlock) return { reason: 'DrainBlocked', message: drainBlock.message };
  return undefined;
}

/** Serves one group's queue, editing the drafts it schedules and grants. */
export function serveQueue(input: QueueInput): ServedQueue {
  const { group: g, drafts, budget, now, disruptions } = input;
  const counted = new Set(drafts.filter((d) => d.facts().counts).map((d) => d.name));
  const queue: QueueEntry[] = [];
  const taking: NodeDraft[] = [];
  const findings: Finding[] = [];
  const wait = ({ draft, facts }: Candidate, reason: WaitReason, message: string): void => {
    queue.push({ node: draft.name, requestedAt: formatTimestamp(facts.requestedAt ?? now), reason, message });
  };
  const candidates = drafts
    .map((draft) => ({ draft, facts: draft.facts() }))
    .filter(({ facts }) => !facts.setAside && (facts.phase === 'Asking' || facts.phase === 'Scheduled'))
    .sort(byRequest);
  for (const c of candidates) {
    const { draft, facts } = c;
    const hold = holdOf(c, input);
    if (hold) {
      const { finding } = hold;
      if (finding) {
        const { kind, message } = finding;
        findings.push({ kind, severity: 'Warning', node: draft.name, group: g.name, message });
      }
      wait(c, hold.reason, hold.message);
      continue;
    }
    if (facts.phase === 'Asking') {
      if (counted.size >= budget) {
        wait(c, 'BudgetExhausted', `${counted.size} of ${budget} nodes unavailable or in flight`);
        continue;
      }
      schedule(draft, g, now);
      disruptions?.reserve(draft.name);
      counted.add(draft.name);
      taking.push(draft);
    }
    const hooks = beforeHooksOf(draft, g);
    if (hooksPassed(draft, hooks)) {
      grant(draft, g, now);
    } else {
      const missing = hooks.filter((k) => draft.annotations[k] !== TRUE);
      wait(c, 'WaitingForBeforeRebootAnnotations', `waiting for ${missing.join(', ')}`);
    }
  }
  return { queue, taking, findings };
}
