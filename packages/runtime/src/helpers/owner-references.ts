import { apiVersionOf, type KubeObject, type OwnerReference, type ResourceType } from '../api/types.js';

/** The object already has a different controller owner. */
export class AlreadyOwnedError extends Error {
  override readonly name = 'AlreadyOwnedError';
}

function referenceTo(ownerType: ResourceType, owner: KubeObject): OwnerReference {
  const { name, uid } = owner.metadata;
  if (!name || !uid)
    throw new Error('an owner needs metadata.name and metadata.uid (read it from the server first)');
  return { apiVersion: apiVersionOf(ownerType), kind: ownerType.kind, name, uid };
}

function checkScope(ownerType: ResourceType, owner: KubeObject, object: KubeObject): void {
  // The garbage collector ignores references that cross namespaces or point from cluster scope into one.
  if (ownerType.namespaced && owner.metadata.namespace !== object.metadata.namespace) {
    throw new Error(
      `cross-namespace owner references are not allowed: owner in ${owner.metadata.namespace}, object in ${object.metadata.namespace}`,
    );
  }
}

/**
 * Makes `owner` the controller of `object` (in place; returns `object`), so the owner is reconciled
 * when the object changes and the object is garbage-collected with it. Refuses a second controller:
 * throws {@link AlreadyOwnedError} if another object already controls it.
 */
export function setControllerReference<T extends KubeObject>(
  ownerType: ResourceType,
  owner: KubeObject,
  object: T,
): T {
  checkScope(ownerType, owner, object);
  const ref = { ...referenceTo(ownerType, owner), controller: true, blockOwnerDeletion: true };
  const refs = object.metadata.ownerReferences ?? [];
  const existing = refs.find((r) => r.controller === true);
  if (existing && existing.uid !== ref.uid) {
    throw new AlreadyOwnedError(
      `${object.metadata.name} is already controlled by ${existing.kind} ${existing.name}; refusing a second controller`,
    );
  }
  object.metadata.ownerReferences = [...refs.filter((r) => r.uid !== ref.uid), ref];
  return object;
}

/** Adds (or refreshes) a non-controller owner reference (in place; returns `object`). */
export function setOwnerReference<T extends KubeObject>(
  ownerType: ResourceType,
  owner: KubeObject,
  object: T,
): T {
  checkScope(ownerType, owner, object);
  const ref = referenceTo(ownerType, owner);
  const refs = object.metadata.ownerReferences ?? [];
  const existing = refs.find((r) => r.uid === ref.uid);
  object.metadata.ownerReferences = [...refs.filter((r) => r.uid !== ref.uid), { ...existing, ...ref }];
  return object;
}

/** Whether `owner` is the controller of `object`. */
export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  return (
    object.metadata.ownerReferences?.some((r) => r.controller === true && r.uid === owner.metadata.uid) ??
    false
  );
}
