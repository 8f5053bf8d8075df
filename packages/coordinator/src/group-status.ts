/**
 * Writes each RebootGroup's status as the planner computed it, through the runtime's
 * `writeStatusIfChanged`: only what changed, only onto the version the plan read, condition
 * transition times kept across rounds on the coordinator's clock, so an unchanged world writes
 * nothing.
 */
import { type Client, type Clock, isConflict, isNotFound, writeStatusIfChanged } from '@capstan/runtime';
import type { RebootGroupStatus } from './api/reboot-group.js';
import type { Plan } from './decide/plan.js';
import type { World } from './planner-service.js';
import { RebootGroupType } from './resources.js';

/**
 * Writes the status of every group of `world` the plan has one for, when it differs from what
 * the group holds; returns how many were written. A group deleted or changed meanwhile is skipped
 * (the next round sees it).
 */
export async function writeGroupStatuses(
  client: Client,
  world: World,
  p: Plan,
  clock: Clock,
): Promise<number> {
  let written = 0;
  for (const group of world.groups) {
    const name = group.metadata?.name;
    const computed = name ? p.groupStatus[name] : undefined;
    if (!name || !computed) continue;
    const generation = typeof group.metadata.generation === 'number' ? group.metadata.generation : undefined;
    const observed = generation !== undefined ? { observedGeneration: generation } : {};
    const status: RebootGroupStatus = {
      ...computed,
      conditions: computed.conditions.map((c) => ({ ...c, ...observed })),
      ...observed,
    };
    try {
      if (await writeStatusIfChanged(client, RebootGroupType, group, status, { clock })) written++;
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
  }
  return written;
}
