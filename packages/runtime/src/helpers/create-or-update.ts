import { isNotFound } from '../api/errors.js';
import type { KubeObject, ObjectKey, ResourceType, UnstructuredObject } from '../api/types.js';
import type { Client } from '../client/client.js';
import { isJsonObject, jsonEqual } from './json-equal.js';

/** What {@link createOrUpdate} and {@link createOrPatch} did. */
export type OperationResult = 'created' | 'updated' | 'unchanged';

/** Changes a (copy of the) object in place toward its desired state; may be async. */
export type MutateFunction<T extends KubeObject> = (object: T) => void | Promise<void>;

/** The RFC 7386 merge patch that turns `from` into `to` (null removes a field). */
export function mergePatchBetween(from: unknown, to: unknown): unknown {
  if (!isJsonObject(from) || !isJsonObject(to)) return to;
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(from)) {
    if (to[key] === undefined && from[key] !== undefined) patch[key] = null;
  }
  for (const [key, value] of Object.entries(to)) {
    if (value === undefined || jsonEqual(from[key], value)) continue;
    patch[key] = isJsonObject(value) && isJsonObject(from[key]) ? mergePatchBetween(from[key], value) : value;
  }
  return patch;
}

async function readMutable<T extends KubeObject>(client: Client, type: ResourceType<T>, key: ObjectKey) {
  try {
    return structuredClone(await client.get(type, key)) as T;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

const fresh = <T extends KubeObject>(key: ObjectKey): T =>
  ({ metadata: key.namespace ? { name: key.name, namespace: key.namespace } : { name: key.name } }) as T;

function checkKey(object: KubeObject, key: ObjectKey): void {
  if (
    object.metadata.name !== key.name ||
    (object.metadata.namespace ?? undefined) !== (key.namespace ?? undefined)
  ) {
    throw new Error('the mutate function must not change metadata.name or metadata.namespace');
  }
}

/**
 * Reads the object (from the cache for a cached kind), applies `mutate` to a copy, and writes only
 * if something changed: creates it when missing, updates it (with its resourceVersion, so a
 * concurrent change fails with Conflict and the reconcile retries) when different, and otherwise
 * writes nothing. Status is not written: use the status subresource.
 */
export async function createOrUpdate<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  key: ObjectKey,
  mutate: MutateFunction<T>,
): Promise<{ result: OperationResult; object: T }> {
  const existing = await readMutable(client, type, key);
  if (!existing) {
    const object = fresh<T>(key);
    await mutate(object);
    checkKey(object, key);
    return { result: 'created', object: await client.create(type, object) };
  }
  const before = structuredClone(existing);
  await mutate(existing);
  checkKey(existing, key);
  if (jsonEqual(before, existing)) return { result: 'unchanged', object: before };
  return { result: 'updated', object: await client.update(type, existing) };
}

/**
 * Like {@link createOrUpdate}, but sends only what `mutate` changed as a merge patch (no
 * resourceVersion: other writers' fields are kept), and writes changes to `status` through the
 * status subresource.
 */
export async function createOrPatch<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  key: ObjectKey,
  mutate: MutateFunction<T>,
): Promise<{ result: OperationResult; object: T }> {
  const existing = await readMutable(client, type, key);
  if (!existing) {
    const object = fresh<T>(key);
    await mutate(object);
    checkKey(object, key);
    const { status, ...rest } = object as UnstructuredObject;
    let created = await client.create(type, rest as T);
    if (status !== undefined) {
      created = await client.patchStatus(type, key, 'merge', { status });
    }
    return { result: 'created', object: created };
  }
  const before = structuredClone(existing);
  await mutate(existing);
  checkKey(existing, key);
  const { status: oldStatus, ...oldRest } = before as UnstructuredObject;
  const { status: newStatus, ...newRest } = existing as UnstructuredObject;
  const mainPatch = mergePatchBetween(oldRest, newRest) as Record<string, unknown>;
  const statusChanged = !jsonEqual(oldStatus, newStatus);
  if (Object.keys(mainPatch).length === 0 && !statusChanged) return { result: 'unchanged', object: before };
  let object = before;
  if (Object.keys(mainPatch).length > 0) object = await client.patch(type, key, 'merge', mainPatch);
  if (statusChanged) {
    object = await client.patchStatus(type, key, 'merge', {
      status: mergePatchBetween(oldStatus, newStatus) ?? null,
    });
  }
  return { result: 'updated', object };
}
