/**
 * PDB-aware grants: whether a node's drain can go through now, judged from its pods and the
 * PodDisruptionBudgets that cover them, as the eviction API will judge each eviction. Pure: the
 * coordinator reads the pods and budgets (`disruption-facts.ts`), the planner keeps one
 * {@link DisruptionLedger} per round across all groups, so two nodes granted in one round never
 * count on the same disruption.
 *
 * A pod the drain evicts (the runtime's drain rules: not a DaemonSet or mirror pod, not
 * terminating or finished) needs, from the one budget that covers it:
 * - a disruption, when it is Ready (the eviction API takes one off `disruptionsAllowed`);
 * - nothing, when it is not Ready and the budget is satisfied or says `AlwaysAllow` (the eviction
 *   API lets an unhealthy pod go then); otherwise it cannot be evicted now.
 * A pod covered by more than one budget, or a budget the disruption controller has not yet
 * observed, is refused by the eviction API whatever the numbers say.
 *
 * A node can drain now when each budget it needs has at least its need left after the nodes
 * already holding a slot took theirs; a node that needs more than a budget ever allows at once
 * still goes when it has that budget to itself (its drain then evicts as the budget frees), so
 * nobody waits forever behind their own replicas.
 */
import { labelSelectorFromSpec } from '@capstan/runtime';
import type { LabelSelectorSpec } from '@capstan/runtime/client';

/** A PodDisruptionBudget as the planner needs it. */
export interface BudgetFacts {
  namespace: string;
  name: string;
  /** `spec.selector`; `null` when absent (selects no pod; `{}` selects every pod of the namespace). */
  selector: LabelSelectorSpec | null;
  /** `status.disruptionsAllowed`. */
  disruptionsAllowed: number;
  /** `status.observedGeneration` ≥ `metadata.generation` (else the eviction API refuses, 429). */
  observed: boolean;
  /** `status.currentHealthy ≥ status.desiredHealthy`: an unready pod may be evicted. */
  satisfied: boolean;
  /** `spec.unhealthyPodEvictionPolicy: AlwaysAllow`. */
  alwaysAllowUnhealthy: boolean;
}

/** A pod a drain would evict (skipped and terminating pods are left out by the reader). */
export interface EvictedPodFacts {
  namespace: string;
  name: string;
  node: string;
  labels: Readonly<Record<string, string>>;
  ready: boolean;
}

/** What the planner reads about disruptions for a round (`error`: they could not be read). */
export interface DisruptionFacts {
  budgets: readonly BudgetFacts[];
  pods: readonly EvictedPodFacts[];
  /** The pods or budgets could not be read: every PDB-aware node waits (fail closed). */
  error?: string;
}

/** Why a node's drain cannot go through now: the budget (`namespace/name`) and a message. */
export interface DrainBlock {
  budget: string;
  message: string;
}

/** What one node's drain needs: disruptions by budget, and what no number can allow. */
interface NodeNeeds {
  byBudget: Map<string, { count: number; pods: string[] }>;
  refused?: DrainBlock;
}

const keyOf = (b: { namespace: string; name: string }): string => `${b.namespace}/${b.name}`;

/** What each node's drain needs from which budget, by node name. */
export function drainNeeds(facts: DisruptionFacts): Map<string, NodeNeeds> {
  const byNamespace = new Map<
    string,
    { budget: BudgetFacts; matches: (l: Record<string, string>) => boolean }[]
  >();
  for (const budget of facts.budgets) {
    const selector = budget.selector === null ? undefined : labelSelectorFromSpec(budget.selector);
    const matches = (labels: Record<string, string>) => selector?.matches(labels) ?? false;
    byNamespace.set(budget.namespace, [...(byNamespace.get(budget.namespace) ?? []), { budget, matches }]);
  }
  const needs = new Map<string, NodeNeeds>();
  for (const pod of facts.pods) {
    const covering = (byNamespace.get(pod.namespace) ?? []).filter((b) => b.matches({ ...pod.labels }));
    if (covering.length === 0) continue;
    const node: NodeNeeds = needs.get(pod.node) ?? { byBudget: new Map() };
    needs.set(pod.node, node);
    if (node.refused) continue;
    const podName = `${pod.namespace}/${pod.name}`;
    const first = covering[0]?.budget as BudgetFacts;
    const refusal = refusalOf(
      podName,
      pod.ready,
      covering.map((b) => b.budget),
    );
    if (refusal) {
      node.refused = refusal;
      continue;
    }
    if (!pod.ready) continue;
    const need = node.byBudget.get(keyOf(first)) ?? { count: 0, pods: [] };
    need.count += 1;
    need.pods.push(podName);
    node.byBudget.set(keyOf(first), need);
  }
  return needs;
}

/** Why the eviction API refuses this pod whatever the numbers, or `undefined`. */
function refusalOf(pod: string, ready: boolean, covering: readonly BudgetFacts[]): DrainBlock | undefined {
  const first = covering[0] as BudgetFacts;
  if (covering.length > 1) {
    return {
      budget: keyOf(first),
      message: `pod ${pod} is covered by more than one PodDisruptionBudget (${covering.map(keyOf).join(', ')}): the eviction API refuses it`,
    };
  }
  if (!first.observed) {
    return {
      budget: keyOf(first),
      message: `PodDisruptionBudget ${keyOf(first)} is not yet observed by the disruption controller: evictions of pod ${pod} are refused`,
    };
  }
  if (!ready && !first.satisfied && !first.alwaysAllowUnhealthy) {
    return {
      budget: keyOf(first),
      message: `PodDisruptionBudget ${keyOf(first)} has fewer healthy pods than it wants: unready pod ${pod} cannot be evicted`,
    };
  }
  return undefined;
}

/**
 * One round's disruptions: nodes holding a slot reserve what their drains need, and a node is
 * let through only if what is left covers it.
 */
export class DisruptionLedger {
  private readonly needs: Map<string, NodeNeeds>;
  private readonly allowed = new Map<string, number>();
  /** Disruptions reserved per budget, and by which nodes. */
  private readonly reserved = new Map<string, number>();
  private readonly holders = new Set<string>();

  constructor(private readonly facts: DisruptionFacts) {
    this.needs = drainNeeds(facts);
    for (const b of facts.budgets) this.allowed.set(keyOf(b), Math.max(0, b.disruptionsAllowed));
  }

  /** `node` holds a slot: its drain's disruptions are taken (once). */
  reserve(node: string): void {
    if (this.holders.has(node)) return;
    this.holders.add(node);
    for (const [budget, need] of this.needs.get(node)?.byBudget ?? []) {
      this.reserved.set(budget, (this.reserved.get(budget) ?? 0) + need.count);
    }
  }

  /** Why `node`'s drain cannot go through now (its own reservation aside), or `undefined`. */
  blockerOf(node: string): DrainBlock | undefined {
    if (this.facts.error !== undefined) {
      return { budget: '', message: `PodDisruptionBudgets could not be read: ${this.facts.error}` };
    }
    const needs = this.needs.get(node);
    if (!needs) return undefined;
    if (needs.refused) return needs.refused;
    for (const [budget, need] of needs.byBudget) {
      const own = this.holders.has(node) ? need.count : 0;
      const others = (this.reserved.get(budget) ?? 0) - own;
      const allowed = this.allowed.get(budget) ?? 0;
      const left = Math.max(0, allowed - others);
      // Enough left, or the budget to itself with at least one disruption (evicted as it frees).
      if (need.count <= left || (others === 0 && allowed >= 1)) continue;
      const shown = need.pods.slice(0, 3).join(', ') + (need.pods.length > 3 ? ', …' : '');
      return {
        budget,
        message: `PodDisruptionBudget ${budget} allows ${left} more disruption(s) now; the drain needs ${need.count} (${shown})`,
      };
    }
    return undefined;
  }
}
