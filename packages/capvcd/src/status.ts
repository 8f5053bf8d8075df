/**
 * Status bookkeeping shared by both reconcilers: conditions set in one place, the Ready summary,
 * and a status write only when something changed (a reconcile of an unchanged world writes nothing).
 */
import {
  type Client,
  type Clock,
  type Condition,
  isConflict,
  type KubeObject,
  type ResourceType,
  setCondition,
  writeStatusIfChanged,
} from '@capstan/runtime';
import { Conditions } from './api/keys.js';
import type { TaskRef } from './api/types.js';

/** A status with conditions. */
export interface WithConditions {
  conditions?: Condition[];
  observedGeneration?: number;
}

/** Sets one condition on `status` (in place), with the object's generation. */
export function condition(
  status: WithConditions,
  object: KubeObject,
  type: string,
  ok: boolean,
  reason: string,
  message = '',
): void {
  status.conditions = setCondition(status.conditions, {
    type,
    status: ok ? 'True' : 'False',
    reason,
    message,
    observedGeneration: object.metadata.generation,
  });
}

/** Sets Paused (True while paused, False otherwise). */
export function pausedCondition(status: WithConditions, object: KubeObject, paused: boolean): void {
  condition(status, object, Conditions.Paused, paused, paused ? 'Paused' : 'NotPaused');
}

/**
 * Writes the status subresource when it differs from what the object holds, through the runtime's
 * {@link writeStatusIfChanged}: a merge patch of the difference that applies only to the version it
 * was computed from (409 Conflict otherwise). A reconcile that read a cached copy older than this
 * provider's own last write must not put the older status back: a machine whose Provisioned status
 * was overwritten so would never be looked at again. A task href lost to a conflict mostly costs
 * nothing: the next reconcile sees the task's VM or vApp busy and waits (where it would not, see
 * {@link writeStatusKeepingTask}).
 */
export async function writeStatus<T extends KubeObject & { status?: unknown }, S extends WithConditions>(
  client: Client,
  type: ResourceType<T>,
  object: T,
  status: S,
  clock: Clock,
): Promise<boolean> {
  status.observedGeneration = object.metadata.generation;
  return writeStatusIfChanged(client, type, object, status as NonNullable<T['status']>, { clock });
}

/**
 * {@link writeStatus} after a VCD write whose task is in `status.task`, for writes whose effect the
 * next look may not see while the task runs (an anti-affinity rule being made). Should the write
 * conflict (the object edited since it was read), the task alone is recorded, unconditionally (it
 * is newer than anything stored), before the conflict is thrown: the next reconcile polls it.
 */
export async function writeStatusKeepingTask<
  T extends KubeObject & { status?: unknown },
  S extends WithConditions & { task?: TaskRef },
>(client: Client, type: ResourceType<T>, object: T, status: S, clock: Clock): Promise<boolean> {
  try {
    return await writeStatus(client, type, object, status, clock);
  } catch (err) {
    const { namespace, name } = object.metadata;
    if (status.task && name && isConflict(err))
      await client.patchStatus(type, namespace ? { namespace, name } : { name }, 'merge', {
        status: { task: status.task },
      });
    throw err;
  }
}
