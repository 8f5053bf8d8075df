/**
 * Writes rendered objects with server-side apply under the operator's field manager, and finds
 * and deletes what the stack created but no longer renders. Only objects carrying the stack's
 * labels are ever pruned or deleted: what a user applied by hand is never touched.
 */
import {
  apiVersionOf,
  type Client,
  isNotFound,
  type KubeObject,
  type ResourceType,
  TerminalError,
} from '@capstan/runtime';
import { stackLabels, VERSION_OPERATOR_MANAGER } from './api/reboot-stack.js';
import type { Manifest } from './catalogue.js';
import { holds, withManifestHash } from './decide/already-applied.js';
import { objectKey } from './decide/render.js';
import { DELETION_ORDER, kindOf } from './kinds.js';

/** The label selector of every object a stack's operator created. */
export function stackSelector(stack: string): string {
  return `${stackLabels.managedBy}=${VERSION_OPERATOR_MANAGER},${stackLabels.stack}=${stack}`;
}

/**
 * Applies `objects` in order (force: the operator owns the fields it renders) and returns them as
 * the server answered; an object that already holds its manifest (same hash, fields untouched) is
 * read, not applied again, so a converged stack costs no write.
 * @throws TerminalError for a manifest of a kind the operator does not manage.
 */
export async function applyObjects(client: Client, objects: readonly Manifest[]): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  for (const object of objects) {
    const type = kindOf(object.apiVersion, object.kind);
    if (!type)
      throw new TerminalError(`manifest ${objectKey(object)}: kind not managed by the version operator`);
    const stamped = withManifestHash(object);
    const live = await readLive(client, type, stamped);
    if (live && holds(stamped, live)) out.push(live);
    else
      out.push(
        await client.apply(type, stamped as KubeObject, {
          fieldManager: VERSION_OPERATOR_MANAGER,
          force: true,
        }),
      );
  }
  return out;
}

/** The object as the server holds it now (a direct read), or undefined when there is none. */
async function readLive(client: Client, type: ResourceType<KubeObject>, m: Manifest) {
  try {
    return await client.get(
      type,
      { namespace: m.metadata.namespace, name: m.metadata.name },
      { direct: true },
    );
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

interface Found {
  key: string;
  type: ResourceType<KubeObject>;
  object: KubeObject;
}

/** The stack's objects on the server, of every managed kind, in deletion order. */
async function stackObjects(client: Client, stack: string): Promise<Found[]> {
  const found: Found[] = [];
  for (const type of DELETION_ORDER) {
    const { items } = await client.list(type, { labelSelector: stackSelector(stack), direct: true });
    for (const object of items) {
      const metadata = object.metadata as Manifest['metadata'];
      found.push({
        key: objectKey({ apiVersion: apiVersionOf(type), kind: type.kind, metadata }),
        type,
        object,
      });
    }
  }
  return found;
}

async function deleteObject(client: Client, { type, object }: Found): Promise<void> {
  try {
    await client.delete(
      type,
      { namespace: object.metadata.namespace, name: object.metadata.name as string },
      { propagationPolicy: 'Background', preconditions: { uid: object.metadata.uid } },
    );
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/** Deletes the stack's objects whose keys are not in `keep`; returns the keys deleted. */
export async function pruneObjects(
  client: Client,
  stack: string,
  keep: ReadonlySet<string>,
): Promise<string[]> {
  const pruned: string[] = [];
  for (const found of await stackObjects(client, stack)) {
    if (keep.has(found.key) || found.object.metadata.deletionTimestamp) continue;
    await deleteObject(client, found);
    pruned.push(found.key);
  }
  return pruned;
}

/**
 * Asks the server to delete every object the stack created (workloads first); returns how many
 * deletions it asked for (0: everything is gone or already going, so the stack may go).
 */
export async function deleteStackObjects(client: Client, stack: string): Promise<number> {
  let asked = 0;
  for (const found of await stackObjects(client, stack)) {
    if (found.object.metadata.deletionTimestamp) continue;
    await deleteObject(client, found);
    asked++;
  }
  return asked;
}
