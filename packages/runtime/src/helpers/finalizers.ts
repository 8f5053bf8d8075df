import type { Client } from '../client/client.js';
import { ApiError, isConflict, isInvalid } from '../client/errors.js';
import type { KubeObject, ObjectKey, ResourceType } from '../client/types.js';

const MAX_ATTEMPTS = 5;

const keyOf = (object: KubeObject): ObjectKey =>
  object.metadata.namespace
    ? { namespace: object.metadata.namespace, name: object.metadata.name as string }
    : { name: object.metadata.name as string };

// A JSON patch whose `test` failed: the list changed under us (the apiserver answers 422 or 409).
const lostRace = (err: unknown) =>
  err instanceof ApiError && (isInvalid(err) || isConflict(err) || err.code === 500);

/**
 * Adds `finalizer` to the object without clobbering another writer's finalizers: a JSON patch that
 * first `test`s the list it read, retried on a fresh read when someone else changed it meanwhile.
 * Returns the object as written (or as read, when the finalizer was already there).
 */
export async function addFinalizer<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  object: T,
  finalizer: string,
): Promise<T> {
  let current = object;
  for (let attempt = 1; ; attempt++) {
    const list = current.metadata.finalizers;
    if (list?.includes(finalizer)) return current;
    const patch = list
      ? [
          { op: 'test', path: '/metadata/finalizers', value: list },
          { op: 'add', path: '/metadata/finalizers/-', value: finalizer },
        ]
      : [
          // No list yet: `add` of the whole array would replace one created meanwhile, so fence on the version.
          { op: 'test', path: '/metadata/resourceVersion', value: current.metadata.resourceVersion },
          { op: 'add', path: '/metadata/finalizers', value: [finalizer] },
        ];
    try {
      return await client.patch(type, keyOf(current), 'json', patch);
    } catch (err) {
      if (!lostRace(err) || attempt >= MAX_ATTEMPTS) throw err;
      current = await client.get(type, keyOf(current), { direct: true });
    }
  }
}

/**
 * Removes `finalizer` without clobbering other finalizers: tests the entry at its index, then
 * removes exactly that index; retried on a fresh read when the list moved. Returns the object as
 * written (the server may delete it at once when this was its last finalizer).
 */
export async function removeFinalizer<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  object: T,
  finalizer: string,
): Promise<T> {
  let current = object;
  for (let attempt = 1; ; attempt++) {
    const index = current.metadata.finalizers?.indexOf(finalizer) ?? -1;
    if (index < 0) return current;
    const patch = [
      { op: 'test', path: `/metadata/finalizers/${index}`, value: finalizer },
      { op: 'remove', path: `/metadata/finalizers/${index}` },
    ];
    try {
      return await client.patch(type, keyOf(current), 'json', patch);
    } catch (err) {
      if (!lostRace(err) || attempt >= MAX_ATTEMPTS) throw err;
      current = await client.get(type, keyOf(current), { direct: true });
    }
  }
}

/** Whether the object carries `finalizer`. */
export const hasFinalizer = (object: KubeObject, finalizer: string): boolean =>
  object.metadata.finalizers?.includes(finalizer) ?? false;
