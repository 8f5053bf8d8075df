/**
 * Status bookkeeping shared by both reconcilers: conditions set in one place, the Ready summary,
 * and a status write only when something changed (a reconcile of an unchanged world writes nothing).
 */
import {
  type Client,
  type Condition,
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
 * Writes the status subresource when it differs from what the object holds, as a merge patch
 * (only this provider writes these statuses: a concurrent change of labels or owner references
 * by Cluster API must not make a recorded task href get lost to a conflict).
 */
export async function writeStatus<T extends KubeObject & { status?: unknown }, S extends WithConditions>(
  client: Client,
  type: ResourceType<T>,
  object: T,
  status: S,
): Promise<boolean> {
  status.observedGeneration = object.metadata.generation;
  if (JSON.stringify(status) === JSON.stringify(object.status ?? {})) return false;
  const key = { namespace: object.metadata.namespace as string, name: object.metadata.name as string };
  await client.patchStatus(
    type,
    key,
    'merge',
    mergePatchBetween({ status: object.status ?? {} }, { status }),
  );
  return true;
}
