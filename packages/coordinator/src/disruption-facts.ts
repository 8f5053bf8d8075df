/**
 * Reads what PDB-aware grants need for a round: the pods a drain would evict (the runtime's drain
 * rules: no DaemonSet or mirror pods, nothing terminating or finished) and every
 * PodDisruptionBudget, straight from the API server (the coordinator caches neither). Read only
 * when a group is `pdbAware`; a read that fails becomes the facts' error, which holds every
 * PDB-aware node (fail closed) with the reason in its queue.
 */
import { type Client, isJsonObject, podDrainFacts } from '@capstan/runtime';
import { Pod, PodDisruptionBudget } from '@capstan/runtime/client';
import type { RebootGroup } from './api/reboot-group.js';
import type { BudgetFacts, DisruptionFacts, EvictedPodFacts } from './decide/disruption-budgets.js';

/** Whether any group asks for PDB-aware grants. */
export function wantsDisruptionFacts(groups: readonly RebootGroup[]): boolean {
  return groups.some((g) => isJsonObject(g.spec) && g.spec.pdbAware === true);
}

/** The round's pods and budgets; `undefined` when no group is PDB-aware. */
export async function readDisruptionFacts(
  client: Client,
  groups: readonly RebootGroup[],
): Promise<DisruptionFacts | undefined> {
  if (!wantsDisruptionFacts(groups)) return undefined;
  try {
    const [pods, budgets] = await Promise.all([
      client.list(Pod, { direct: true }),
      client.list(PodDisruptionBudget, { direct: true }),
    ]);
    return {
      pods: pods.items.flatMap((p) => evictedPod(p) ?? []),
      budgets: budgets.items.map(budgetFacts),
    };
  } catch (err) {
    return { pods: [], budgets: [], error: err instanceof Error ? err.message : String(err) };
  }
}

/** A pod as the planner weighs it, or `undefined` when a drain would not evict it. */
export function evictedPod(pod: Pod): EvictedPodFacts | undefined {
  const node = pod.spec?.nodeName;
  const phase = pod.status?.phase;
  if (!node || phase === 'Succeeded' || phase === 'Failed') return undefined;
  const drain = podDrainFacts(pod);
  if (drain.daemonSet || drain.mirror || drain.terminating) return undefined;
  return {
    namespace: drain.namespace,
    name: drain.name,
    node,
    labels: pod.metadata.labels ?? {},
    ready: pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
  };
}

/** A budget as the planner weighs it. */
export function budgetFacts(pdb: PodDisruptionBudget): BudgetFacts {
  const status = pdb.status;
  return {
    namespace: pdb.metadata.namespace ?? '',
    name: pdb.metadata.name ?? '',
    selector: pdb.spec?.selector ?? null,
    disruptionsAllowed: status?.disruptionsAllowed ?? 0,
    observed: (status?.observedGeneration ?? 0) >= (pdb.metadata.generation ?? 0) && status !== undefined,
    satisfied: (status?.currentHealthy ?? 0) >= (status?.desiredHealthy ?? 0),
    alwaysAllowUnhealthy: pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow',
  };
}
