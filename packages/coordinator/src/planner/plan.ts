/**
 * The planner: from a snapshot of nodes and groups, the exact node edits that move every reboot
 * cycle forward, each group's status, and findings. Pure: no I/O, no clock but `now`, no memory
 * of earlier plans (state lives in the nodes' annotations), so a restarted coordinator, or the
 * same one a second later, decides alike; planning the result of a plan writes nothing.
 *
 * Group decisions, in this order per group (groups by ascending order):
 * - Gate: nothing new is scheduled or granted while the group is invalid, paused, halted (a node
 *   carries the failure marker), waiting for a lower-order group (one with a node asking or in
 *   flight), or outside its windows. In-flight nodes always finish.
 * - Grant: a scheduled node still asking whose before-reboot annotations are all `"true"`.
 * - Schedule (the only step that takes a slot of the budget): asking nodes first come first
 *   served by request time, while |D| < budget, where D is the group's nodes in flight or
 *   otherwise unavailable.
 */

import {
  capstanProtocol,
  coordinatorKeys,
  formatTimestamp,
  type Protocol,
  RESERVED_PREFIXES,
  TRUE,
} from '@capstan/reboot-protocol';
import { resolveBudget } from '../api/budget.js';
import type {
  QueueEntry,
  RebootGroupCondition,
  RebootGroupSpec,
  RebootGroupStatus,
  WaitReason,
} from '../api/reboot-group.js';
import { isWithinWindows } from '../api/reboot-window.js';
import type { Finding } from './finding.js';
import { inspectValues } from './garbage.js';
import {
  assignNodes,
  byOrder,
  type GroupPolicy,
  type NamedRebootGroup,
  resolveGroup,
} from './group-policy.js';
import type { NodeSnapshot } from './node-snapshot.js';
import { isUsableBootId, NodeDraft, type NodeFacts } from './node-state.js';
import type { NodeWrite } from './node-write.js';
import { hooksPassed, settle } from './reboot-cycle.js';

/** Default grant timeout: 30 minutes. */
export const DEFAULT_GRANT_TIMEOUT_MS = 30 * 60_000;
/** Default name of the group of nodes no `RebootGroup` selects. */
export const DEFAULT_GROUP_NAME = 'default';
/** Policy of the default group unless options say otherwise: one node at a time, last in order. */
export const DEFAULT_GROUP_SPEC: Readonly<RebootGroupSpec> = Object.freeze({
  maxUnavailable: 1,
  order: 1000,
});

/** How the planner is configured. */
export interface PlannerOptions {
  /** Which keys to speak; default {@link capstanProtocol}. */
  protocol?: Protocol;
  /**
   * Group of nodes no selector matches. If a `RebootGroup` has this name, unmatched nodes join
   * it; otherwise a group with {@link defaultGroup} as its policy holds them. Default `default`.
   */
  defaultGroupName?: string;
  /** Policy of the default group, over {@link DEFAULT_GROUP_SPEC}; its selector is ignored. */
  defaultGroup?: RebootGroupSpec;
  /** Grant timeout of groups that set none; default {@link DEFAULT_GRANT_TIMEOUT_MS}. */
  defaultGrantTimeoutMs?: number;
}

/** Everything a plan depends on. */
export interface PlanInput {
  nodes: readonly NodeSnapshot[];
  groups: readonly NamedRebootGroup[];
  /** Current time, ms since the epoch. */
  now: number;
  options?: PlannerOptions;
}

/** What to do, and what to report. */
export interface Plan {
  /** Apply in order, each conditional on its resourceVersion; stop at the first failure. */
  writes: NodeWrite[];
  /** Status of every group, the default group included, by name. */
  groupStatus: Record<string, RebootGroupStatus>;
  /** Which group each node belongs to, by node name. */
  membership: Record<string, string>;
  findings: Finding[];
}

function byRequest(
  a: { facts: NodeFacts; draft: NodeDraft },
  b: { facts: NodeFacts; draft: NodeDraft },
): number {
  const ta = a.facts.requestedAt ?? Number.POSITIVE_INFINITY;
  const tb = b.facts.requestedAt ?? Number.POSITIVE_INFINITY;
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.draft.name < b.draft.name ? -1 : a.draft.name > b.draft.name ? 1 : 0;
}

function schedule(draft: NodeDraft, group: GroupPolicy): void {
  draft.setLabel(draft.protocol.labels.beforeReboot, TRUE);
  // Fresh hook answers for this cycle: a stale "true" from an earlier one must not count.
  draft.removeAnnotations(group.beforeHooks);
  draft.record('Scheduled');
}

function grant(draft: NodeDraft, group: GroupPolicy, now: number): void {
  draft.setAnnotation(draft.protocol.annotations.rebootOk, TRUE);
  draft.setAnnotation(coordinatorKeys.grantedBootId, draft.node.bootID);
  draft.setAnnotation(coordinatorKeys.grantedAt, formatTimestamp(now));
  draft.removeLabel(draft.protocol.labels.beforeReboot);
  draft.removeAnnotations(group.beforeHooks);
  draft.removeAnnotation(coordinatorKeys.requestedAt);
  draft.record('Granted');
}

const GATE_MESSAGES: Record<string, string> = {
  InvalidGroup: 'the group is invalid (see its Valid condition)',
  GroupPaused: 'the group is paused',
  GroupHalted: 'a node of the group is marked failed',
  WaitingForLowerOrder: 'a group with a lower order has nodes asking or in flight',
  OutsideWindow: 'outside the group’s reboot windows',
};

function condition(type: string, status: boolean, reason: string, message: string): RebootGroupCondition {
  return { type, status: status ? 'True' : 'False', reason, message };
}

/** Plans one round. Never throws on anything found in annotations, labels or group specs. */
export function plan(input: PlanInput): Plan {
  const { now } = input;
  if (!Number.isFinite(now)) throw new RangeError(`plan: now must be a finite time, got ${now}`);
  const options = input.options ?? {};
  const protocol = options.protocol ?? capstanProtocol;
  const timeoutMs = options.defaultGrantTimeoutMs ?? DEFAULT_GRANT_TIMEOUT_MS;
  const defaultName = options.defaultGroupName ?? DEFAULT_GROUP_NAME;
  const findings: Finding[] = [];

  // Groups: resolved, deduplicated, plus the default group.
  const groups: GroupPolicy[] = [];
  for (const g of input.groups) {
    if (groups.some((o) => o.name === g.name)) {
      findings.push({
        kind: 'DuplicateGroup',
        severity: 'Warning',
        group: g.name,
        message: `two groups are named ${g.name}; the second is ignored`,
      });
      continue;
    }
    groups.push(resolveGroup(g.name, g.spec, timeoutMs, false, RESERVED_PREFIXES));
  }
  let defaultGroup = groups.find((g) => g.name === defaultName);
  if (!defaultGroup) {
    const spec = { ...DEFAULT_GROUP_SPEC, ...(options.defaultGroup ?? {}) };
    delete spec.nodeSelector;
    defaultGroup = resolveGroup(defaultName, spec, timeoutMs, true, RESERVED_PREFIXES);
    groups.push(defaultGroup);
  }
  const membershipUnknown = groups.filter((g) => !g.selectorUsable).map((g) => g.name);
  for (const g of groups) {
    if (g.problems.length > 0) {
      findings.push({
        kind: 'InvalidGroup',
        severity: 'Warning',
        group: g.name,
        message: `group ${g.name} is invalid and grants nothing new: ${g.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      });
    }
  }

  // Nodes: one draft each (first of duplicate names wins), settled by the per-node rules.
  const seen = new Set<string>();
  const nodes = input.nodes.filter((n) => !seen.has(n.name) && seen.add(n.name));
  const members = assignNodes(nodes, groups, defaultGroup, findings);
  const drafts = new Map<string, NodeDraft[]>();
  const membership: Record<string, string> = {};
  const order: NodeDraft[] = [];
  for (const g of groups) {
    const list = (members.get(g.name) ?? []).map((n) => new NodeDraft(n, protocol));
    drafts.set(g.name, list);
    for (const d of list) {
      membership[d.name] = g.name;
      order.push(d);
      inspectValues(d, g, findings);
      settle(d, g, now, findings);
    }
  }

  const busy = new Map<string, boolean>();
  for (const g of groups) {
    busy.set(
      g.name,
      (drafts.get(g.name) ?? []).some((d) => {
        const f = d.facts();
        return f.asking || f.inFlight;
      }),
    );
  }

  const consuming: NodeDraft[] = [];
  const groupStatus: Record<string, RebootGroupStatus> = {};
  const sorted = [...groups].sort(byOrder);
  for (const g of sorted) {
    const list = drafts.get(g.name) ?? [];
    const budget = resolveBudget(g.spec.maxUnavailable, list.length);
    const counted = new Set(list.filter((d) => d.facts().counts).map((d) => d.name));
    const failed = list.filter((d) => d.facts().failed).map((d) => d.name);
    const windowOpen = isWithinWindows(Array.isArray(g.spec.windows) ? g.spec.windows : undefined, now);
    const lowerBusy = sorted.filter((o) => o.order < g.order && busy.get(o.name)).map((o) => o.name);
    const invalid = g.problems.length > 0 || (g === defaultGroup && membershipUnknown.length > 0);
    const gate: WaitReason | undefined = invalid
      ? 'InvalidGroup'
      : g.paused
        ? 'GroupPaused'
        : failed.length > 0
          ? 'GroupHalted'
          : lowerBusy.length > 0
            ? 'WaitingForLowerOrder'
            : !windowOpen
              ? 'OutsideWindow'
              : undefined;
    for (const name of failed) {
      findings.push({
        kind: 'NodeFailed',
        severity: 'Warning',
        node: name,
        group: g.name,
        message: `node ${name} carries ${coordinatorKeys.failed}; group ${g.name} grants nothing new until it is removed`,
      });
    }

    const candidates = list
      .map((draft) => ({ draft, facts: draft.facts() }))
      .filter(({ facts }) => facts.phase === 'Asking' || facts.phase === 'Scheduled')
      .sort(byRequest);
    const queue: QueueEntry[] = [];
    const wait = (draft: NodeDraft, facts: NodeFacts, reason: WaitReason, message: string): void => {
      queue.push({
        node: draft.name,
        requestedAt: formatTimestamp(facts.requestedAt ?? now),
        reason,
        message,
      });
    };
    for (const { draft, facts } of candidates) {
      if (gate) {
        let message = GATE_MESSAGES[gate] ?? gate;
        if (gate === 'WaitingForLowerOrder') message = `${message}: ${lowerBusy.join(', ')}`;
        if (gate === 'GroupHalted') message = `${message}: ${failed.join(', ')}`;
        if (gate === 'InvalidGroup' && !g.problems.length) {
          message = `membership is unknown while groups ${membershipUnknown.join(', ')} have invalid selectors`;
        }
        wait(draft, facts, gate, message);
        continue;
      }
      if (!isUsableBootId(draft.node.bootID)) {
        findings.push({
          kind: 'MissingBootID',
          severity: 'Warning',
          node: draft.name,
          group: g.name,
          message: `node ${draft.name} asks for a reboot but reports no boot ID; a grant could not be fenced`,
        });
        wait(draft, facts, 'NoBootID', 'the node reports no status.nodeInfo.bootID');
        continue;
      }
      if (facts.inProgress) {
        findings.push({
          kind: 'RebootInProgressWithoutGrant',
          severity: 'Warning',
          node: draft.name,
          group: g.name,
          message: `node ${draft.name} says a reboot is in progress but holds no grant`,
        });
        wait(
          draft,
          facts,
          'RebootInProgressWithoutGrant',
          'the agent says a reboot is in progress without a grant',
        );
        continue;
      }
      if (facts.phase === 'Asking') {
        if (counted.size >= budget) {
          wait(
            draft,
            facts,
            'BudgetExhausted',
            `${counted.size} of ${budget} nodes unavailable or in flight`,
          );
          continue;
        }
        schedule(draft, g);
        counted.add(draft.name);
        if (!draft.countedBefore) consuming.push(draft);
      }
      if (hooksPassed(draft, g.beforeHooks)) {
        grant(draft, g, now);
      } else {
        const missing = g.beforeHooks.filter((k) => draft.annotations[k] !== TRUE);
        wait(draft, facts, 'WaitingForBeforeRebootAnnotations', `waiting for ${missing.join(', ')}`);
      }
    }

    const finals = list.map((d) => d.facts());
    const problems = g.problems.map((p) => `${p.path}: ${p.message}`);
    groupStatus[g.name] = {
      nodes: list.length,
      asking: finals.filter((f) => f.asking).length,
      inFlight: finals.filter((f) => f.inFlight).length,
      unavailable: finals.filter((f) => f.counts).length,
      maxUnavailable: budget,
      rebooted: finals.filter((f) => f.rebootedAt !== undefined).length,
      failed: failed.length,
      windowOpen,
      queue,
      conditions: [
        problems.length > 0
          ? condition('Valid', false, 'InvalidSpec', problems.join('; '))
          : condition('Valid', true, 'Valid', 'the spec is valid'),
        failed.length > 0
          ? condition(
              'Halted',
              true,
              'NodeFailed',
              `failed: ${failed.join(', ')}; remove ${coordinatorKeys.failed} to resume`,
            )
          : condition('Halted', false, 'NoFailures', 'no node is marked failed'),
        condition(
          'WindowOpen',
          windowOpen,
          !g.spec.windows?.length ? 'NoWindows' : windowOpen ? 'InsideWindow' : 'OutsideWindow',
          !g.spec.windows?.length
            ? 'the group has no windows: always open'
            : windowOpen
              ? 'a window is open'
              : 'no window is open',
        ),
      ],
    };
  }

  // Writes: everything that keeps or frees budget first, then the slots taken, first come first.
  const writes: NodeWrite[] = [];
  const last: NodeWrite[] = [];
  for (const d of order) {
    const w = d.toWrite();
    if (!w) continue;
    (w.consumesBudget ? last : writes).push(w);
  }
  last.sort(
    (a, b) => consuming.findIndex((d) => d.name === a.node) - consuming.findIndex((d) => d.name === b.node),
  );
  writes.push(...last);

  const unique = new Map<string, Finding>();
  for (const f of findings)
    unique.set(
      `${f.kind}\u0000${f.node ?? ''}\u0000${f.group ?? ''}\u0000${f.key ?? ''}\u0000${f.message}`,
      f,
    );
  return { writes, groupStatus, membership, findings: [...unique.values()] };
}
