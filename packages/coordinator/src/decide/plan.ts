/**
 * The planner: from a snapshot of nodes and groups, the exact node edits that move every reboot
 * cycle forward, each group's status, findings, the events the edits announce, and when to plan
 * again. Pure: no I/O, no clock but `now`, no memory of earlier plans (state lives in the nodes'
 * annotations), so a restarted coordinator, or the same one a second later, decides alike;
 * planning the result of a plan writes nothing.
 *
 * One round, in steps:
 * 1. Groups: every spec resolved once, the default group added (`group-policy.ts`).
 * 2. Nodes: each settled by the per-node rules of the reboot cycle (`reboot-cycle.ts`).
 * 3. Per group, by ascending order: the gate (`gate.ts`: may anything new start?), the queue
 *    (`queue.ts`: first come first served, schedule while |D| < budget, grant when the
 *    before-reboot checks pass), the status (`status.ts`).
 * 4. Writes: everything that keeps or frees a slot first, then the slots taken (budget or not),
 *    first come first.
 * 5. Events of the writes (`events.ts`), `Degraded` from the findings, the next wake-up (`wake.ts`).
 */
import { capstanProtocol, type Protocol } from '@capstan/reboot-protocol';
import { resolveBudget } from '../api/budget.js';
import { calendarAt } from '../api/reboot-calendar.js';
import type { RebootGroupSpec, RebootGroupStatus } from '../api/reboot-group.js';
import { type DisruptionFacts, DisruptionLedger } from './disruption-budgets.js';
import { eventsOf, type PlannedEvent } from './events.js';
import { applyFailurePolicies, type FailureOutcome } from './failure-policy.js';
import type { Finding } from './finding.js';
import { inspectValues } from './garbage.js';
import { failedNodeFindings, gateOf } from './gate.js';
import {
  assignNodes,
  byOrder,
  type GroupPolicy,
  type NamedRebootGroup,
  resolveGroups,
} from './group-policy.js';
import type { GroupGateFacts } from './health-gates.js';
import type { NodeSnapshot } from './node-snapshot.js';
import { NodeDraft } from './node-state.js';
import type { NodeWrite } from './node-write.js';
import { type RefusedNode, serveQueue } from './queue.js';
import { settle } from './reboot-cycle.js';
import { degradedCondition, groupStatusOf } from './status.js';
import { wakeAfter } from './wake.js';

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
  /** The longest wait {@link Plan.wakeAfterMs} reports (the resync period); default 30 s. */
  horizonMs?: number;
}

/** Everything a plan depends on. */
export interface PlanInput {
  nodes: readonly NodeSnapshot[];
  groups: readonly NamedRebootGroup[];
  /** Current time, ms since the epoch. */
  now: number;
  options?: PlannerOptions;
  /**
   * Nodes whose writes the API server refused, with why (the reconciler's memory): reported on
   * their group, passed over by its queue, so one node never holds up the others.
   */
  refused?: Readonly<Record<string, RefusedNode>>;
  /** Each group's health gates as read for this round, by group name (no entry: no gates). */
  gates?: Readonly<Record<string, GroupGateFacts>>;
  /** Pods and PodDisruptionBudgets, read when a group is `pdbAware` (absent: nobody checks). */
  disruption?: DisruptionFacts;
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
  /** The events to record on a node once its write is applied. */
  events: PlannedEvent[];
  /** Milliseconds until a timeout or a window opening is due (at most the horizon): plan again then. */
  wakeAfterMs: number;
}

const DEFAULT_HORIZON_MS = 30_000;

/** Plans one round, in the header's steps. Never throws on anything found in annotations, labels or group specs. */
export function plan(input: PlanInput): Plan {
  const { now } = input;
  if (!Number.isFinite(now)) throw new RangeError(`plan: now must be a finite time, got ${now}`);
  const options = input.options ?? {};
  const findings: Finding[] = [];
  // 1. Groups.
  const { groups, defaultGroup } = groupsOfRound(input, findings);
  // 2. Nodes.
  const nodes = settleNodes(input, groups, defaultGroup, options.protocol ?? capstanProtocol, findings);
  // 3. Per group, by ascending order: gate, queue, status.
  const round = roundOf(input, groups, defaultGroup, nodes, findings);
  const taking: NodeDraft[] = [];
  const groupStatus: Record<string, RebootGroupStatus> = {};
  for (const g of round.sorted) {
    const served = serveGroup(g, nodes.drafts.get(g.name) ?? [], round);
    taking.push(...served.taking);
    groupStatus[g.name] = served.status;
  }
  // 4. Writes.
  const writes = orderWrites(nodes.order, taking);
  // 5. Events, Degraded, the next wake-up.
  const unique = dedupe(findings);
  for (const [name, status] of Object.entries(groupStatus)) {
    status.conditions.push(degradedCondition(name, unique, nodes.membership));
  }
  const wakeAfterMs = wakeAfter({
    now,
    horizonMs: options.horizonMs ?? DEFAULT_HORIZON_MS,
    groups: round.sorted.map((policy) => ({
      policy,
      nodes: (nodes.drafts.get(policy.name) ?? []).map((d) => d.initialFacts),
      outsideWindowWaiting:
        groupStatus[policy.name]?.queue.some(
          (q) => q.reason === 'OutsideWindow' || q.reason === 'Blackout',
        ) ?? false,
    })),
  });
  const { membership } = nodes;
  return {
    writes,
    groupStatus,
    membership,
    findings: unique,
    events: eventsOf(writes, membership),
    wakeAfterMs,
  };
}

/** Step 2's result: each group's drafts, each node's group, and every draft in planning order. */
interface RoundNodes {
  drafts: Map<string, NodeDraft[]>;
  membership: Record<string, string>;
  order: NodeDraft[];
}

/** Step 2: one draft per node (first of duplicate names wins), settled by the per-node rules. */
function settleNodes(
  input: PlanInput,
  groups: readonly GroupPolicy[],
  defaultGroup: GroupPolicy,
  protocol: Protocol,
  findings: Finding[],
): RoundNodes {
  const seen = new Set<string>();
  const nodes = input.nodes.filter((n) => !seen.has(n.name) && seen.add(n.name));
  const members = assignNodes(nodes, groups, defaultGroup, findings);
  const round: RoundNodes = { drafts: new Map(), membership: {}, order: [] };
  for (const g of groups) {
    const list = (members.get(g.name) ?? []).map((n) => new NodeDraft(n, protocol));
    round.drafts.set(g.name, list);
    for (const d of list) {
      round.membership[d.name] = g.name;
      round.order.push(d);
      inspectValues(d, g, findings);
      settle(d, g, input.now, findings, input.gates?.[g.name]);
    }
  }
  return round;
}

/** What every group's step 3 shares: the groups in order, which are busy, failures, the PDB ledger. */
interface GroupRound {
  input: PlanInput;
  findings: Finding[];
  defaultGroup: GroupPolicy;
  sorted: GroupPolicy[];
  /** Groups whose selector cannot be read: membership is unknown, so nothing new starts. */
  membershipUnknown: string[];
  /** Groups with a node asking or in flight. */
  busy: Set<string>;
  failures: Map<string, FailureOutcome>;
  disruptions: DisruptionLedger | undefined;
}

/** Step 3's shared facts; failure policies first: a node set aside this round keeps no group waiting. */
function roundOf(
  input: PlanInput,
  groups: readonly GroupPolicy[],
  defaultGroup: GroupPolicy,
  nodes: RoundNodes,
  findings: Finding[],
): GroupRound {
  const membershipUnknown = groups.filter((g) => !g.selectorUsable).map((g) => g.name);
  const failures = applyFailurePolicies(groups, nodes.drafts, input.now, findings);
  const busy = new Set(
    groups
      .filter((g) => (nodes.drafts.get(g.name) ?? []).some((d) => d.facts().asking || d.facts().inFlight))
      .map((g) => g.name),
  );
  // One ledger for every group: nodes already holding a slot have their drains' disruptions taken.
  const disruptions = input.disruption ? new DisruptionLedger(input.disruption) : undefined;
  for (const d of nodes.order) if (d.facts().counts) disruptions?.reserve(d.name);
  const sorted = [...groups].sort(byOrder);
  return { input, findings, defaultGroup, sorted, membershipUnknown, busy, failures, disruptions };
}

/** Step 3 for one group: its gate, its queue served within budget, its status. */
function serveGroup(
  g: GroupPolicy,
  list: NodeDraft[],
  round: GroupRound,
): { taking: NodeDraft[]; status: RebootGroupStatus } {
  const { input, findings } = round;
  const { now } = input;
  const budget = resolveBudget(g.spec.maxUnavailable, list.length);
  const { halting: failed, setAside } = round.failures.get(g.name) as FailureOutcome;
  const calendar = calendarAt(g.spec, now);
  const windowOpen = calendar.open;
  const lowerBusy = round.sorted
    .filter((o) => o.order < g.order && round.busy.has(o.name))
    .map((o) => o.name);
  const gate = gateOf({
    group: g,
    failed,
    windowOpen,
    ...(calendar.blackout ? { blackout: calendar.blackout } : {}),
    lowerBusy,
    membershipUnknown: round.membershipUnknown,
    isDefault: g === round.defaultGroup,
  });
  findings.push(...failedNodeFindings(g, failed));
  findings.push(...refusedWriteFindings(g, list, input.refused));
  const gates = input.gates?.[g.name];
  const served = serveQueue({
    group: g,
    drafts: list,
    gate,
    budget,
    now,
    refused: input.refused ?? {},
    ...(gates ? { gates } : {}),
    ...(round.disruptions ? { disruptions: round.disruptions } : {}),
  });
  findings.push(...served.findings);
  const status = groupStatusOf({
    group: g,
    drafts: list,
    budget,
    failed: list.filter((d) => d.facts().failed).map((d) => d.name),
    halting: failed,
    setAside,
    windowOpen,
    inBlackout: calendar.blackout !== undefined,
    queue: served.queue,
    ...(gates?.health ? { gates: gates.health } : {}),
  });
  return { taking: served.taking, status };
}

/** A finding for each node of the group whose writes the API server refused, saying why. */
function refusedWriteFindings(
  g: GroupPolicy,
  list: readonly NodeDraft[],
  refused: PlanInput['refused'],
): Finding[] {
  return list.flatMap((d) => {
    const why = refused?.[d.name]?.message;
    if (why === undefined) return [];
    return [{ kind: 'WritesRefused', severity: 'Warning', node: d.name, group: g.name, message: why }];
  });
}

/** The groups of a round: its `RebootGroup`s resolved, and the default group under the options. */
export function groupsOfRound(
  input: Pick<PlanInput, 'groups' | 'options'>,
  findings: Finding[],
): { groups: GroupPolicy[]; defaultGroup: GroupPolicy } {
  const options = input.options ?? {};
  return resolveGroups(
    input.groups,
    {
      name: options.defaultGroupName ?? DEFAULT_GROUP_NAME,
      spec: { ...DEFAULT_GROUP_SPEC, ...(options.defaultGroup ?? {}) },
      grantTimeoutMs: options.defaultGrantTimeoutMs ?? DEFAULT_GRANT_TIMEOUT_MS,
    },
    findings,
  );
}

/**
 * The group `node` joins in a round of these groups (from {@link groupsOfRound}): the plan's
 * `membership[node.name]` for any fleet holding it once, without planning the fleet (membership
 * depends on the node's labels and the groups alone).
 */
export function groupOfNode(node: NodeSnapshot, round: ReturnType<typeof groupsOfRound>): string {
  for (const [name, members] of assignNodes([node], round.groups, round.defaultGroup, [])) {
    if (members.length > 0) return name;
  }
  return round.defaultGroup.name;
}

/**
 * Everything that keeps or frees a slot first, then the slots taken, first come first. A slot
 * given to a node already unavailable (NotReady, cordoned) consumes no budget, but it is still a
 * slot: were it written before this round's releases, a crash between them would leave more
 * nodes holding slots than the budget allows.
 */
function orderWrites(order: readonly NodeDraft[], taking: readonly NodeDraft[]): NodeWrite[] {
  const rank = new Map(taking.map((d, i) => [d.name, i]));
  const writes: NodeWrite[] = [];
  const last: NodeWrite[] = [];
  for (const d of order) {
    const w = d.toWrite();
    if (w) (w.consumesBudget || rank.has(w.node) ? last : writes).push(w);
  }
  const of = (w: NodeWrite) => rank.get(w.node) ?? -1;
  last.sort((a, b) => of(a) - of(b));
  return [...writes, ...last];
}

function dedupe(findings: readonly Finding[]): Finding[] {
  const unique = new Map<string, Finding>();
  for (const f of findings) {
    unique.set(
      `${f.kind}\u0000${f.node ?? ''}\u0000${f.group ?? ''}\u0000${f.key ?? ''}\u0000${f.message}`,
      f,
    );
  }
  return [...unique.values()];
}
