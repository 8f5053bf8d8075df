/**
 * A straightforward planner, the oracle of the optimised one: every selector evaluated on every
 * node (no compiled selectors, no decisions shared between nodes of the same labels), every fact
 * read afresh from the edited maps whenever a rule asks (no memo), every draft diffed into a write
 * (no "untouched" shortcut). It composes the same per-node and per-group rules as `plan()`; what
 * it does not share is the bookkeeping the optimisations replaced.
 */
import { capstanProtocol } from '@capstan/reboot-protocol';
import { matchesSelector } from '@capstan/runtime';
import { applyFailurePolicies, type FailureOutcome } from '../../src/decide/failure-policy.js';
import { inspectValues } from '../../src/decide/garbage.js';
import {
  byOrder,
  degradedCondition,
  eventsOf,
  type Finding,
  failedNodeFindings,
  type GroupPolicy,
  gateOf,
  groupStatusOf,
  groupsOfRound,
  isWithinWindows,
  NodeDraft,
  type NodeFacts,
  type NodeSnapshot,
  type NodeWrite,
  type Plan,
  type PlanInput,
  type RebootGroupStatus,
  readFacts,
  resolveBudget,
  serveQueue,
  settle,
  wakeAfter,
} from '../../src/index.js';

/** A draft that never remembers its facts and always diffs its maps against the snapshot. */
class PlainDraft extends NodeDraft {
  override facts(): NodeFacts {
    return readFacts(this.node, this.annotations, this.labels, this.protocol);
  }

  override toWrite(): NodeWrite | undefined {
    const diff = (now: Readonly<Record<string, string>>, was: Readonly<Record<string, string>>) => ({
      set: Object.fromEntries(Object.entries(now).filter(([k, v]) => was[k] !== v)),
      remove: Object.keys(was).filter((k) => !Object.hasOwn(now, k)),
    });
    const a = diff(this.annotations, this.node.annotations);
    const l = diff(this.labels, this.node.labels);
    const size = Object.keys(a.set).length + Object.keys(l.set).length + a.remove.length + l.remove.length;
    if (size === 0) return undefined;
    return {
      node: this.name,
      resourceVersion: this.node.resourceVersion,
      setAnnotations: a.set,
      removeAnnotations: a.remove,
      setLabels: l.set,
      removeLabels: l.remove,
      consumesBudget: !this.countedBefore && this.facts().counts,
      actions: this.actions.length > 0 ? [...this.actions] : ['Normalized'],
    };
  }
}

/** The first group by order whose selector takes the node, each selector evaluated from its spec. */
function straightforwardMembership(
  nodes: readonly NodeSnapshot[],
  groups: readonly GroupPolicy[],
  defaultGroup: GroupPolicy,
  findings: Finding[],
): Map<string, NodeSnapshot[]> {
  const members = new Map<string, NodeSnapshot[]>(groups.map((g) => [g.name, []]));
  for (const node of nodes) {
    const matched = [...groups]
      .sort(byOrder)
      .filter(
        (g) =>
          g !== defaultGroup &&
          !g.selectsNothing &&
          g.selectorUsable &&
          matchesSelector(g.spec.nodeSelector, node.labels),
      );
    const home = matched[0] ?? defaultGroup;
    if (matched.length > 1) {
      const names = matched.map((g) => g.name).join(', ');
      for (const g of matched) {
        const tail = g === home ? '' : ` and is not counted in ${g.name}`;
        findings.push({
          kind: 'NodeInSeveralGroups',
          severity: 'Warning',
          node: node.name,
          group: g.name,
          message: `node ${node.name} matches groups ${names}; it joins ${home.name}${tail}`,
        });
      }
    }
    members.get(home.name)?.push(node);
  }
  return members;
}

/** The plan of `input`, computed the straightforward way. */
export function referencePlan(input: PlanInput): Plan {
  const { now, refused = {} } = input;
  const options = input.options ?? {};
  const protocol = options.protocol ?? capstanProtocol;
  const findings: Finding[] = [];
  const { groups, defaultGroup } = groupsOfRound(input, findings);
  const nodes = input.nodes.filter((n, i) => input.nodes.findIndex((o) => o.name === n.name) === i);
  const members = straightforwardMembership(nodes, groups, defaultGroup, findings);
  const drafts = new Map(
    groups.map((g) => [g.name, (members.get(g.name) ?? []).map((n) => new PlainDraft(n, protocol))]),
  );
  const membership: Record<string, string> = {};
  for (const g of groups) {
    for (const d of drafts.get(g.name) ?? []) {
      membership[d.name] = g.name;
      inspectValues(d, g, findings);
      settle(d, g, now, findings);
    }
  }
  const failures = applyFailurePolicies(groups, drafts, now, findings);
  const busy = groups.filter((g) => drafts.get(g.name)?.some((d) => d.facts().asking || d.facts().inFlight));
  const sorted = [...groups].sort(byOrder);
  const groupStatus: Record<string, RebootGroupStatus> = {};
  const taking: NodeDraft[] = [];
  for (const g of sorted) {
    const list = drafts.get(g.name) ?? [];
    const budget = resolveBudget(g.spec.maxUnavailable, list.length);
    const { halting: failed, setAside } = failures.get(g.name) as FailureOutcome;
    const windowOpen = isWithinWindows(Array.isArray(g.spec.windows) ? g.spec.windows : undefined, now);
    const gate = gateOf({
      group: g,
      failed,
      windowOpen,
      lowerBusy: busy
        .filter((o) => o.order < g.order)
        .sort(byOrder)
        .map((o) => o.name),
      membershipUnknown: groups.filter((o) => !o.selectorUsable).map((o) => o.name),
      isDefault: g === defaultGroup,
    });
    findings.push(...failedNodeFindings(g, failed));
    for (const d of list) {
      const message = refused[d.name]?.message;
      if (message !== undefined)
        findings.push({ kind: 'WritesRefused', severity: 'Warning', node: d.name, group: g.name, message });
    }
    const served = serveQueue({ group: g, drafts: list, gate, budget, now, refused });
    findings.push(...served.findings);
    taking.push(...served.taking);
    groupStatus[g.name] = groupStatusOf({
      group: g,
      drafts: list,
      budget,
      failed: list.filter((d) => d.facts().failed).map((d) => d.name),
      halting: failed,
      setAside,
      windowOpen,
      queue: served.queue,
    });
  }
  const all = groups.flatMap((g) => (drafts.get(g.name) ?? []).map((d) => d.toWrite()));
  const written = all.filter((w): w is NodeWrite => w !== undefined);
  const rank = (w: NodeWrite) => taking.findIndex((d) => d.name === w.node);
  const takes = (w: NodeWrite) => w.consumesBudget || rank(w) >= 0;
  const writes = [
    ...written.filter((w) => !takes(w)),
    ...written.filter(takes).sort((a, b) => rank(a) - rank(b)),
  ];
  const key = (f: Finding) => [f.kind, f.node ?? '', f.group ?? '', f.key ?? '', f.message].join('\u0000');
  const unique = [...new Map(findings.map((f) => [key(f), f])).values()];
  for (const [name, status] of Object.entries(groupStatus)) {
    status.conditions.push(degradedCondition(name, unique, membership));
  }
  const wakeAfterMs = wakeAfter({
    now,
    horizonMs: options.horizonMs ?? 30_000,
    groups: sorted.map((policy) => ({
      policy,
      nodes: (members.get(policy.name) ?? []).map((n) => readFacts(n, n.annotations, n.labels, protocol)),
      outsideWindowWaiting:
        groupStatus[policy.name]?.queue.some((q) => q.reason === 'OutsideWindow') ?? false,
    })),
  });
  return {
    writes,
    groupStatus,
    membership,
    findings: unique,
    events: eventsOf(writes, membership),
    wakeAfterMs,
  };
}
