/**
 * Which nodes the grant fence reads fresh, and which slots a round may then take (`fence.ts`,
 * step 2). A slot is safe when what decides it was listed after the fence began: its group's nodes
 * (the budget counts them) and the nodes of every group ordered before it (a group starts only
 * once every lower `order` is idle). The other groups' nodes may come from the cache. Listing only
 * those keeps a round's fresh read the size of the groups up to the one granting, not of the fleet.
 *
 * 1. The groups where the plan made from the cache takes a slot are the granting groups.
 * 2. Read fresh: the granting groups and every group whose `order` is below the highest of theirs,
 *    each listed by its own selector (ANDed with the coordinator's). Groups that each select one
 *    value or set of values of the same label key are listed together, by the union of those
 *    values (`tier in (a,b,c)`): one request where a rollout's later groups would send one per
 *    group before them. A group that cannot be listed so (the default group, which holds what no
 *    selector matches; a group without a usable selector, or with an empty one) makes the read a
 *    list of every node, as before.
 *    The groups ordered before the granting ones (and not granting) are listed as metadata first:
 *    a node at its cached copy's resourceVersion is that copy, status and all, so a list of names
 *    and resourceVersions says as much as their full list when every one matches. If any does not
 *    (changed since the cache, or not cached), those groups are listed in full too. Late in a
 *    rollout they are most of the fleet, done and unchanged, and their full list was most of a
 *    grant round's read.
 * 3. The fresh nodes replace their cached copies by name. A cached node that the fresh lists do not
 *    hold stays as cached: it left the group or is gone, so its write fails its precondition, and
 *    counting it where it was only makes its old group's budget tighter.
 * 4. The round plans again from that world, and takes slots only in the groups read fresh: a slot
 *    the new plan opens elsewhere (a group after one that the fresh read shows done) waits for the
 *    next round, which reads that group fresh.
 *
 * Nodes of groups ordered after the granting ones stay as cached. What they decide is only the
 * PDB ledger's (`disruption-budgets.ts`): a drain there reserved late costs a grant that waits on
 * its eviction, never a PDB broken, since evictions are what enforce PDBs.
 */
import type { GroupPolicy } from './group-policy.js';
import type { NodeWrite } from './node-write.js';
import type { Plan } from './plan.js';

/**
 * What the fence reads: every node, or the nodes of `groups`: the granting ones listed in full by
 * `selectors`, those ordered before them listed as metadata by `earlierSelectors` (step 2).
 */
export type FreshRead =
  | { all: true }
  | {
      all: false;
      groups: readonly string[];
      selectors: readonly string[];
      earlierSelectors: readonly string[];
    };

/** The groups where `plan` takes a slot (step 1). */
export function grantingGroups(plan: Pick<Plan, 'writes' | 'membership'>): Set<string> {
  const out = new Set<string>();
  for (const w of plan.writes) {
    const group = plan.membership[w.node];
    if (w.consumesBudget && group !== undefined) out.add(group);
  }
  return out;
}

/** How to read `granting` fresh (step 2), given the round's groups and the coordinator's selector. */
export function freshRead(
  granting: ReadonlySet<string>,
  round: { groups: readonly GroupPolicy[]; defaultGroup: GroupPolicy },
  nodeSelector: string | undefined,
): FreshRead {
  // No group known for a slot (never planned so): read everything rather than defer it forever.
  if (granting.size === 0) return { all: true };
  const byName = new Map(round.groups.map((g) => [g.name, g]));
  byName.set(round.defaultGroup.name, round.defaultGroup);
  let highest = -Infinity;
  for (const name of granting) {
    const g = byName.get(name);
    if (!g) return { all: true };
    highest = Math.max(highest, g.order);
  }
  const read = [...byName.values()].filter((g) => granting.has(g.name) || g.order < highest);
  for (const g of read)
    if (g.name === round.defaultGroup.name || !g.selector || g.selector.empty) return { all: true };
  const earlier = read.filter((g) => !granting.has(g.name));
  return {
    all: false,
    groups: read.map((g) => g.name),
    selectors: listSelectors(
      read.filter((g) => granting.has(g.name)),
      nodeSelector,
    ),
    earlierSelectors: earlier.length > 0 ? listSelectors(earlier, nodeSelector) : [],
  };
}

/**
 * The label selectors that list `groups` (each with a usable, non-empty selector) together: one
 * per label key for the groups that each require one key to equal a value or be in a set of
 * values, one per other group; each ANDed with the coordinator's `nodeSelector`.
 */
function listSelectors(groups: readonly GroupPolicy[], nodeSelector: string | undefined): string[] {
  const valuesByKey = new Map<string, Set<string>>();
  const own: string[] = [];
  for (const g of groups) {
    const requirements = g.selector?.requirements ?? [];
    const [only] = requirements;
    if (requirements.length === 1 && only && (only.operator === '=' || only.operator === 'in')) {
      const values = valuesByKey.get(only.key) ?? new Set<string>();
      for (const v of only.values) values.add(v);
      valuesByKey.set(only.key, values);
    } else own.push(g.selector?.toString() ?? '');
  }
  const merged = [...valuesByKey].map(([key, values]) =>
    values.size === 1 ? `${key}=${[...values][0]}` : `${key} in (${[...values].sort().join(',')})`,
  );
  return [...merged, ...own].map((selector) => [nodeSelector, selector].filter(Boolean).join(','));
}

/** The writes a round may apply after replanning from a fresh read (step 4). */
export function writesAfterFreshRead(
  plan: Pick<Plan, 'writes' | 'membership'>,
  read: FreshRead,
): { writes: NodeWrite[]; deferred: number } {
  if (read.all) return { writes: [...plan.writes], deferred: 0 };
  const fresh = new Set(read.groups);
  const writes = plan.writes.filter((w) => !w.consumesBudget || fresh.has(plan.membership[w.node] ?? ''));
  return { writes, deferred: plan.writes.length - writes.length };
}
