/**
 * Reads what the groups' health gates need for a round: for `blockingPods`, the pods its selector
 * matches, by node (one list per group with that gate, from the API server: the coordinator caches
 * no pods); for `prometheus` and `conditions`, each gate's state (`gates/`; the conditions' objects
 * from informers of the coordinator's cache when given). A read that fails, or
 * a selector that cannot be used, becomes the group's gate error or an `Error` state, which blocks
 * every node of the group (fail closed) and shows in its queue and status.
 */
import { type Client, isJsonObject, labelSelectorFromSpec, selectorProblems } from '@capstan/runtime';
import { Pod } from '@capstan/runtime/client';
import type { RebootGroup } from './api/reboot-group.js';
import type { GroupGateFacts, HealthGateState } from './decide/health-gates.js';
import { ConditionReads, type InformerSource } from './gates/condition-reads.js';
import { readConditionsGate } from './gates/conditions-gate.js';
import { readPrometheusGate } from './gates/prometheus-gate.js';

/** Each group's gate facts by group name; groups without gates have no entry. */
export async function readGateFacts(
  client: Client,
  groups: readonly RebootGroup[],
  informers?: InformerSource,
): Promise<Record<string, GroupGateFacts>> {
  const facts: Record<string, GroupGateFacts> = {};
  const reads = new ConditionReads(client, informers);
  await Promise.all(
    groups.map(async (g) => {
      const gates = g.spec?.gates;
      const name = g.metadata.name;
      if (!isJsonObject(gates) || name === undefined) return;
      const [pods, health] = await Promise.all([
        gates.blockingPods === undefined ? undefined : blockingPods(client, gates.blockingPods),
        healthGates(client, reads, gates),
      ]);
      if (pods === undefined && health.length === 0) return;
      facts[name] = { ...pods, ...(health.length > 0 ? { health } : {}) };
    }),
  );
  return facts;
}

/** The Prometheus gate and the conditions, in that order, as read now. */
async function healthGates(
  client: Client,
  reads: ConditionReads,
  gates: NonNullable<NonNullable<RebootGroup['spec']>['gates']>,
): Promise<HealthGateState[]> {
  const [prometheus, conditions] = await Promise.all([
    gates.prometheus ? readPrometheusGate(client, gates.prometheus) : undefined,
    Array.isArray(gates.conditions) ? readConditionsGate(reads, gates.conditions) : [],
  ]);
  return [...(prometheus ? [prometheus] : []), ...conditions];
}

async function blockingPods(client: Client, selector: unknown): Promise<GroupGateFacts> {
  const problems = selectorProblems(selector, 'spec.gates.blockingPods');
  if (problems.length > 0) return { error: `blockingPods gate: ${problems.join('; ')}` };
  const compiled = labelSelectorFromSpec(selector as Parameters<typeof labelSelectorFromSpec>[0]);
  if (!compiled) return { error: 'blockingPods gate: the selector cannot be used' };
  try {
    const { items } = await client.list(Pod, { labelSelector: compiled.toString(), direct: true });
    const byNode: Record<string, string[]> = {};
    for (const pod of items) {
      const node = pod.spec?.nodeName;
      if (!node || isFinished(pod)) continue;
      const name = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
      byNode[node] = [...(byNode[node] ?? []), name];
    }
    return { blockingPods: byNode };
  } catch (err) {
    return {
      error: `blockingPods gate: pods could not be listed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}

/** A pod that ran to completion blocks nothing (kured counts only pods that are not finished). */
function isFinished(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}
