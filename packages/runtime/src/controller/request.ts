import type { KubeObject, ObjectKey } from '../api/types.js';

/** What a reconciler is asked to reconcile: one object, by key. Never an event. */
export type Request = ObjectKey;

/** The work-queue key of a request: `namespace/name`, or `name` for cluster-scoped objects. */
export function requestKey(request: Request): string {
  return request.namespace ? `${request.namespace}/${request.name}` : request.name;
}

/** The inverse of {@link requestKey}. */
export function parseRequestKey(key: string): Request {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** The request for an object. */
export function requestFor(object: KubeObject): Request {
  const { namespace, name } = object.metadata;
  return namespace ? { namespace, name: name ?? '' } : { name: name ?? '' };
}
