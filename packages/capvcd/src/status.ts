/**
 * Status bookkeeping shared by both reconcilers: conditions set in one place, the Ready summary,
 * and a status write only when something changed (a reconcile of an unchanged world writes nothing).
 */
import {
  type Client,
  type Condition,
  conditionalMergePatch,
  type KubeObject,
  mergePatchBetween,
  type ResourceType,
  setCondition,
} from '@capstan/runtime';
import { Conditions } from './api/keys.js';

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
 * Writes the status subresource when it differs from what the object holds, as a merge patch that
 * applies only to the version it was computed from (409 Conflict otherwise). A reconcile that read
 * a cached copy older than this provider's own last write must not put the older status back: a
 * machine whose Provisioned status was overwritten so would never be looked at again. A task href
 * lost to a conflict costs nothing: the next reconcile sees the task's VM or vApp busy and waits.
 */
export async function writeStatus<T extends KubeObject & { status?: unknown }, S extends WithConditions>(
  client: Client,
  type: ResourceType<T>,
  object: T,
  status: S,
): Promise<boolean> {
  status.observedGeneration = object.metadata.generation;
  // Compared field by field: the same status built in another key order is no change to write.
  const changes = mergePatchBetween({ status: object.status ?? {} }, { status }) as Record<string, unknown>;
  if (Object.keys(changes).length === 0) return false;
  const key = { namespace: object.metadata.namespace as string, name: object.metadata.name as string };
  await client.patchStatus(
    type,
    key,
    'merge',
    conditionalMergePatch(object.metadata.resourceVersion, {}, changes),
  );
  return true;
}
