/**
 * Reads what the groups' health gates need for a round: for `blockingPods`, the pods its selector
 * matches, by node (one list per group with that gate, from the API server: the coordinator caches
 * no pods). A read that fails, or a selector that cannot be used, becomes the group's gate error,
 * which blocks every node of the group (fail closed) and shows in its queue.
 */
import { type Client, isJsonObject, labelSelectorFromSpec, selectorProblems } from '@capstan/runtime';
import { Pod } from '@capstan/runtime/client';
import type { RebootGroup } from './api/reboot-group.js';
import type { GroupGateFacts } from './planner/health-gates.js';

/** Each group's gate facts by group name; groups without gates have no entry. */
export async function readGateFacts(
  client: Client,
  groups: readonly RebootGroup[],
): Promise<Record<string, GroupGateFacts>> {
  const facts: Record<string, GroupGateFacts> = {};
  await Promise.all(
    groups.map(async (g) => {
      const gates = g.spec?.gates;
      const name = g.metadata.name;
      if (!isJsonObject(gates) || name === undefined || gates.blockingPods === undefined) return;
      facts[name] = await blockingPods(client, gates.blockingPods);
    }),
  );
  return facts;
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
