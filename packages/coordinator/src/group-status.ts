/**
 * Writes each RebootGroup's status as the planner computed it, keeping condition transition times
 * across rounds (the runtime's `setCondition`) and writing only what changed, so an unchanged
 * world writes nothing.
 */
import {
  type Client,
  type Condition,
  isConflict,
  isJsonObject,
  isNotFound,
  jsonEqual,
  setCondition,
} from '@capstan/runtime';
import type { RebootGroupStatus } from './api/reboot-group.js';
import type { Plan } from './planner/plan.js';
import type { World } from './planner-service.js';
import { RebootGroupType } from './resources.js';

/** The conditions a status already holds that can carry a transition time forward. */
function previousConditions(status: Record<string, unknown>): Condition[] {
  const list = Array.isArray(status.conditions) ? status.conditions : [];
  return list.filter(
    (c): c is Condition =>
      isJsonObject(c) && typeof c.type === 'string' && typeof c.lastTransitionTime === 'string',
  );
}

/**
 * Writes the status of every group of `world` the plan has one for, when it differs from what
 * the group holds; returns how many were written. A group deleted or changed meanwhile is skipped
 * (the next round sees it).
 */
export async function writeGroupStatuses(
  client: Client,
  world: World,
  p: Plan,
  now: number,
): Promise<number> {
  let written = 0;
  for (const group of world.groups) {
    const name = group.metadata?.name;
    const computed = name ? p.groupStatus[name] : undefined;
    if (!name || !computed) continue;
    const existing: Record<string, unknown> = isJsonObject(group.status) ? group.status : {};
    const before = previousConditions(existing);
    const generation = typeof group.metadata.generation === 'number' ? group.metadata.generation : undefined;
    const at = new Date(now);
    const conditions = computed.conditions.map(
      (c) =>
        setCondition(
          before.filter((b) => b.type === c.type),
          { ...c, ...(generation !== undefined ? { observedGeneration: generation } : {}) },
          at,
        )[0] as Condition,
    );
    const status: RebootGroupStatus = {
      ...computed,
      conditions,
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
    };
    if (jsonEqual(status, existing)) continue;
    try {
      await client.patchStatus(RebootGroupType, { name }, 'merge', { status });
      written++;
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
  return written;
}
