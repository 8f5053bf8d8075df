import { ApiError, isConflict, isInvalid } from '../api/errors.js';
import type { KubeObject, ObjectKey, ResourceType } from '../api/types.js';
import type { Client } from '../client/client.js';

const MAX_ATTEMPTS = 5;

const keyOf = (object: KubeObject): ObjectKey =>
  object.metadata.namespace
    ? { namespace: object.metadata.namespace, name: object.metadata.name as string }
    : { name: object.metadata.name as string };

// A JSON patch whose `test` failed: the list changed under us (the apiserver answers 422 or 409).
const lostRace = (err: unknown) =>
  err instanceof ApiError && (isInvalid(err) || isConflict(err) || err.code === 500);

/**
 * Sends the JSON patch `plan` makes of the object, re-reading and re-planning when a `test` in it
 * failed because another writer changed the list meanwhile. `plan` answers undefined when there
 * is nothing to do; the object is then returned as it is.
 */
async function patchFinalizers<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  object: T,
  plan: (current: T) => unknown[] | undefined,
): Promise<T> {
  let current = object;
  for (let attempt = 1; ; attempt++) {
    const patch = plan(current);
    if (!patch) return current;
    try {
      return await client.patch(type, keyOf(current), 'json', patch);
    } catch (err) {
      if (!lostRace(err) || attempt >= MAX_ATTEMPTS) throw err;
      current = await client.get(type, keyOf(current), { direct: true });
    }
  }
}

/**
 * Adds `finalizer` to the object (unless it is being deleted) without clobbering another writer's finalizers: a JSON patch that
 * first `test`s the list it read, retried on a fresh read when someone else changed it meanwhile.
 * Returns the object as written (or as read, when the finalizer was already there).
 */
export function addFinalizer<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  object: T,
  finalizer: string,
): Promise<T> {
  return patchFinalizers(client, type, object, (current) => {
    const list = current.metadata.finalizers;
    // A deleting object takes no new finalizer (the server refuses it): nothing to do.
    if (list?.includes(finalizer) || current.metadata.deletionTimestamp) return undefined;
    return list
      ? [
          { op: 'test', path: '/metadata/finalizers', value: list },
          { op: 'add', path: '/metadata/finalizers/-', value: finalizer },
        ]
      : [
          // No list yet: `add` of the whole array would replace one created meanwhile, so fence on the version.
          { op: 'test', path: '/metadata/resourceVersion', value: current.metadata.resourceVersion },
          { op: 'add', path: '/metadata/finalizers', value: [finalizer] },
        ];
  });
}

/**
 * Removes `finalizer` without clobbering other finalizers: tests the entry at its index, then
 * removes exactly that index; retried on a fresh read when the list moved. Returns the object as
 * written (the server may delete it at once when this was its last finalizer).
 */
export function removeFinalizer<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  object: T,
  finalizer: string,
): Promise<T> {
  return patchFinalizers(client, type, object, (current) => {
    const index = current.metadata.finalizers?.indexOf(finalizer) ?? -1;
    if (index < 0) return undefined;
    return [
      { op: 'test', path: `/metadata/finalizers/${index}`, value: finalizer },
      { op: 'remove', path: `/metadata/finalizers/${index}` },
    ];
  });
}

/** Whether the object carries `finalizer`. */
export const hasFinalizer = (object: KubeObject, finalizer: string): boolean =>
  object.metadata.finalizers?.includes(finalizer) ?? false;
