/**
 * The writes of the fake cluster (create, update, patch, delete), one function each over a
 * {@link ClusterState}, all updates through {@link writeObject}: the API server's rules for
 * server-owned fields, subresources, optimistic concurrency, generation, finalizers and no-ops.
 */
import { type ApiError, apiError } from '../api/errors.js';
import {
  type ApiStatus,
  apiVersionOf,
  type DeleteOptions,
  type ObjectKey,
  type PatchOptions,
  type PatchType,
  type ResourceType,
  type UnstructuredObject,
  type WriteOptions,
} from '../api/types.js';
import { type ClusterState, clone, objectKeyOf } from './fake-state.js';
import { jsonEqual, jsonPatch, mergePatch } from './patch.js';

/** Everything of an object except metadata, status and the type fields: what bumps `generation`. */
function specOf(obj: UnstructuredObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...spec } = obj;
  return spec;
}

function managedFields(
  state: ClusterState,
  current: UnstructuredObject | undefined,
  type: ResourceType,
  manager: string | undefined,
  operation: 'Update' | 'Apply',
  subresource?: string,
): unknown[] | undefined {
  const existing = (current?.metadata.managedFields ?? []) as Array<Record<string, unknown>>;
  if (!manager) return existing.length > 0 ? existing : undefined;
  const entry: Record<string, unknown> = {
    manager,
    operation,
    apiVersion: apiVersionOf(type),
    time: state.timestamp(),
    fieldsType: 'FieldsV1',
    fieldsV1: {},
  };
  if (subresource) entry.subresource = subresource;
  const others = existing.filter(
    (e) => !(e.manager === manager && e.operation === operation && e.subresource === subresource),
  );
  return [...others, entry];
}

export function createObject(
  state: ClusterState,
  type: ResourceType,
  input: UnstructuredObject,
  options: WriteOptions,
  operation: 'Update' | 'Apply' = 'Update',
): UnstructuredObject {
  const kind = state.kind(type);
  const obj = clone(input);
  const meta = obj.metadata ?? {};
  const namespace = type.namespaced ? meta.namespace : undefined;
  if (type.namespaced && !namespace)
    throw apiError(400, 'BadRequest', 'the namespace of the object is required');
  let name = meta.name;
  if (!name) {
    if (!meta.generateName)
      throw apiError(422, 'Invalid', 'metadata.name: Required value: name or generateName is required');
    do {
      let suffix = '';
      for (let i = 0; i < 5; i++)
        suffix += 'bcdfghjklmnpqrstvwxz2456789'[Math.floor(state.nextRandom() * 27)];
      name = meta.generateName + suffix;
    } while (kind.objects.has(objectKeyOf(namespace, name)));
  }
  const key = objectKeyOf(namespace, name);
  if (kind.objects.has(key)) {
    throw apiError(409, 'AlreadyExists', `${type.plural} "${name}" already exists`, {
      name,
      group: type.group,
      kind: type.plural,
    });
  }
  const {
    resourceVersion: _rv,
    uid: _uid,
    creationTimestamp: _ct,
    deletionTimestamp: _dt,
    deletionGracePeriodSeconds: _dg,
    generation: _g,
    managedFields: _mf,
    namespace: _ns,
    name: _n,
    ...rest
  } = meta;
  const metadata = {
    name,
    ...(namespace ? { namespace } : {}),
    ...rest,
    uid: state.nextUid(),
    generation: 1,
    creationTimestamp: state.timestamp(),
  } as UnstructuredObject['metadata'];
  const managed = managedFields(state, undefined, type, options.fieldManager, operation);
  if (managed) metadata.managedFields = managed;
  const { apiVersion: _a, kind: _k, metadata: _m, ...body } = obj;
  // With a status subresource, status is not writable through create.
  if (kind.statusSubresource) delete body.status;
  const created: UnstructuredObject = { apiVersion: apiVersionOf(type), kind: type.kind, metadata, ...body };
  if (options.dryRun) return created;
  return clone(state.commit(kind, key, 'ADDED', created, undefined));
}

/** A write's preconditions: a stale resourceVersion or another UID is a 409 Conflict. */
function checkPreconditions(
  type: ResourceType,
  current: UnstructuredObject,
  meta: Partial<UnstructuredObject['metadata']>,
): void {
  if (
    meta.resourceVersion !== undefined &&
    meta.resourceVersion !== '' &&
    meta.resourceVersion !== current.metadata.resourceVersion
  ) {
    throw apiError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${type.plural} "${current.metadata.name}": the object has been modified; please apply your changes to the latest version and try again`,
      { name: current.metadata.name, group: type.group, kind: type.plural },
    );
  }
  if (meta.uid !== undefined && meta.uid !== '' && meta.uid !== current.metadata.uid) {
    throw uidPreconditionFailed(meta.uid, current);
  }
}

/** The 409 of a write or delete whose UID precondition names another object than `current`. */
function uidPreconditionFailed(uid: string, current: UnstructuredObject): ApiError {
  return apiError(
    409,
    'Conflict',
    `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid}`,
  );
}

/** A status write changes the status and nothing else. */
function withStatusOf(current: UnstructuredObject, proposed: UnstructuredObject): UnstructuredObject {
  const next: UnstructuredObject = { ...current, metadata: { ...current.metadata } };
  if (proposed.status === undefined) delete next.status;
  else next.status = proposed.status;
  return next;
}

/**
 * A write of the whole object: the proposed body and metadata, server-owned fields kept; with a
 * status subresource the stored status stays.
 */
function withBodyOf(
  current: UnstructuredObject,
  proposed: UnstructuredObject,
  statusSubresource: boolean | undefined,
): UnstructuredObject {
  const meta = proposed.metadata ?? {};
  const { apiVersion: _a, kind: _k, metadata: _m, ...body } = proposed;
  const next: UnstructuredObject = {
    apiVersion: current.apiVersion,
    kind: current.kind,
    metadata: {
      ...meta,
      // Server-owned fields keep their stored values whatever the client sent.
      name: current.metadata.name,
      namespace: current.metadata.namespace,
      uid: current.metadata.uid,
      resourceVersion: current.metadata.resourceVersion,
      generation: current.metadata.generation,
      creationTimestamp: current.metadata.creationTimestamp,
      deletionTimestamp: current.metadata.deletionTimestamp,
      deletionGracePeriodSeconds: current.metadata.deletionGracePeriodSeconds,
      managedFields: current.metadata.managedFields,
    },
    ...body,
  };
  if (next.metadata.namespace === undefined) delete next.metadata.namespace;
  for (const f of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields'] as const) {
    if (next.metadata[f] === undefined) delete next.metadata[f];
  }
  if (statusSubresource) {
    if (current.status === undefined) delete next.status;
    else next.status = current.status;
  }
  return next;
}

/** An object being deleted takes no new finalizer (422), as the API server says. */
function checkNoNewFinalizers(current: UnstructuredObject, next: UnstructuredObject): void {
  if (current.metadata.deletionTimestamp) {
    const before = new Set(current.metadata.finalizers ?? []);
    const added = (next.metadata.finalizers ?? []).filter((f) => !before.has(f));
    if (added.length > 0) {
      throw apiError(
        422,
        'Invalid',
        `metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
      );
    }
  }
}

/**
 * The one path of every update (PUT, PATCH, status writes): applies subresource rules,
 * optimistic concurrency, generation, finalizer completion and the no-op rule.
 */
export function writeObject(
  state: ClusterState,
  type: ResourceType,
  current: UnstructuredObject,
  proposed: UnstructuredObject,
  options: WriteOptions,
  operation: 'Update' | 'Apply',
): UnstructuredObject {
  const kind = state.kind(type);
  const meta = proposed.metadata ?? {};
  checkPreconditions(type, current, meta);
  const sub = options.subresource;
  // Only a kind's declared status subresource exists.
  if (sub !== undefined && (sub !== 'status' || !kind.statusSubresource))
    throw state.notFound(type, current.metadata.name ?? '', sub);
  const next =
    sub === 'status'
      ? withStatusOf(current, proposed)
      : withBodyOf(current, proposed, kind.statusSubresource);
  checkNoNewFinalizers(current, next);
  // Writing what is already stored changes nothing: same resourceVersion, no event.
  if (jsonEqual(next, current)) return clone(current);
  if (!jsonEqual(specOf(next), specOf(current)))
    next.metadata.generation = (current.metadata.generation ?? 0) + 1;
  const managed = managedFields(state, current, type, options.fieldManager, operation, sub);
  if (managed) next.metadata.managedFields = managed;
  if (options.dryRun) return clone(next);

  const key = state.keyFor(type, {
    namespace: current.metadata.namespace,
    name: current.metadata.name ?? '',
  });
  const finished =
    next.metadata.deletionTimestamp !== undefined && (next.metadata.finalizers ?? []).length === 0;
  return clone(state.commit(kind, key, finished ? 'DELETED' : 'MODIFIED', next, current));
}

export function patchObject(
  state: ClusterState,
  type: ResourceType,
  key: ObjectKey,
  patchType: PatchType,
  body: unknown,
  options: PatchOptions,
): UnstructuredObject {
  const kind = state.kind(type);
  if (patchType === 'apply') {
    if (!options.fieldManager) {
      throw apiError(
        422,
        'Invalid',
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      );
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw apiError(400, 'BadRequest', 'an apply patch must be an object');
    }
    const current = kind.objects.get(state.keyFor(type, key));
    if (!current) {
      // Server-side apply creates what does not exist.
      const obj = mergePatch({}, body) as UnstructuredObject;
      obj.metadata = {
        ...obj.metadata,
        name: key.name,
        ...(type.namespaced ? { namespace: key.namespace } : {}),
      };
      return createObject(state, type, obj, options, 'Apply');
    }
    return writeObject(
      state,
      type,
      current,
      mergePatch(current, body) as UnstructuredObject,
      options,
      'Apply',
    );
  }
  const current = state.mustGet(type, key);
  let patched: unknown;
  switch (patchType) {
    case 'merge':
    case 'strategic':
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw apiError(400, 'BadRequest', 'a merge patch must be a JSON object');
      }
      patched = mergePatch(current, body);
      break;
    case 'json':
      patched = jsonPatch(current, body);
      break;
    default:
      throw apiError(415, 'UnsupportedMediaType', `unsupported patch type ${String(patchType)}`);
  }
  if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) {
    throw apiError(422, 'Invalid', 'the patched document is not an object');
  }
  return writeObject(state, type, current, patched as UnstructuredObject, options, 'Update');
}

export function deleteObject(
  state: ClusterState,
  type: ResourceType,
  key: ObjectKey,
  options: DeleteOptions,
): unknown {
  const kind = state.kind(type);
  const current = state.mustGet(type, key);
  const pre = options.preconditions;
  if (pre?.uid !== undefined && pre.uid !== current.metadata.uid)
    throw uidPreconditionFailed(pre.uid, current);
  if (pre?.resourceVersion !== undefined && pre.resourceVersion !== current.metadata.resourceVersion) {
    throw apiError(
      409,
      'Conflict',
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`,
    );
  }
  const storeKey = state.keyFor(type, key);
  if ((current.metadata.finalizers ?? []).length > 0) {
    // Already terminating: nothing changes.
    if (current.metadata.deletionTimestamp) return clone(current);
    const next = {
      ...current,
      metadata: { ...current.metadata, deletionTimestamp: state.timestamp(), deletionGracePeriodSeconds: 0 },
    };
    if (options.dryRun) return clone(next);
    return clone(state.commit(kind, storeKey, 'MODIFIED', next, current));
  }
  if (options.dryRun) return successStatus(type, key.name, current.metadata.uid);
  state.commit(kind, storeKey, 'DELETED', current, current);
  return successStatus(type, key.name, current.metadata.uid);
}

export function successStatus(type: ResourceType, name: string, uid?: string): ApiStatus {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Success',
    details: { name, group: type.group, kind: type.plural, ...(uid ? { uid } : {}) },
  } as ApiStatus;
}
