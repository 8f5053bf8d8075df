/**
 * RBAC verified by use: a transport that records each request's verb and resource, and the check
 * of those requests against the rules an operator was given (what was refused, what no request
 * needed).
 */
import { ApiError } from '../api/errors.js';
import type { KubeObject, ObjectKey, ResourceType } from '../api/types.js';
import type { Permission, Verb } from '../controller/permissions.js';
import { EVENTS_PERMISSION } from '../manager/permissions.js';
import type { ApiTransport } from '../transport/transport.js';

/** One request as RBAC sees it. */
export interface AuditedRequest {
  verb: Verb;
  group: string;
  /** Plural, with `/subresource`. */
  resource: string;
  namespace?: string;
  name?: string;
  /** The HTTP code of a refusal (403), or undefined when the request was not refused. */
  refused?: number;
  /** A server-side apply (a `patch`), which the API server also authorizes as `create` when it makes the object. */
  apply?: true;
}

const resourceOf = (type: ResourceType, subresource?: string) =>
  subresource ? `${type.plural}/${subresource}` : type.plural;

/**
 * Wraps a transport and records every request's verb, resource, namespace and name (and a 403,
 * which it passes on): what {@link auditRbac} compares with the rules.
 */
export function recordingTransport(inner: ApiTransport): {
  transport: ApiTransport;
  requests: AuditedRequest[];
} {
  const requests: AuditedRequest[] = [];
  const record = async <R>(entry: AuditedRequest, send: () => Promise<R>): Promise<R> => {
    const at = requests.push(entry) - 1;
    try {
      return await send();
    } catch (err) {
      if (err instanceof ApiError && err.code === 403) requests[at] = { ...entry, refused: 403 };
      throw err;
    }
  };
  const where = (type: ResourceType, key: ObjectKey | undefined, sub?: string) => ({
    group: type.group,
    resource: resourceOf(type, sub),
    ...(key?.namespace ? { namespace: key.namespace } : {}),
    ...(key?.name ? { name: key.name } : {}),
  });
  const keyOf = (object: KubeObject): ObjectKey => ({
    namespace: object.metadata.namespace,
    name: object.metadata.name ?? '',
  });
  const transport: ApiTransport = {
    get: (type, key, sub) =>
      record({ verb: 'get', ...where(type, key, sub) }, () => inner.get(type, key, sub)),
    list: (type, options) =>
      record({ verb: 'list', ...where(type, { namespace: options?.namespace, name: '' }) }, () =>
        inner.list(type, options),
      ),
    watch: (type, options, callbacks) =>
      record({ verb: 'watch', ...where(type, { namespace: options.namespace, name: '' }) }, () =>
        inner.watch(type, options, callbacks),
      ),
    create: (type, object, options) =>
      record({ verb: 'create', ...where(type, { namespace: object.metadata.namespace, name: '' }) }, () =>
        inner.create(type, object, options),
      ),
    update: (type, object, options) =>
      record({ verb: 'update', ...where(type, keyOf(object), options?.subresource) }, () =>
        inner.update(type, object, options),
      ),
    patch: (type, key, patchType, body, options) =>
      record(
        {
          verb: 'patch',
          ...where(type, key, options?.subresource),
          ...(patchType === 'apply' ? { apply: true as const } : {}),
        },
        () => inner.patch(type, key, patchType, body, options),
      ),
    delete: (type, key, options) =>
      record({ verb: 'delete', ...where(type, key) }, () => inner.delete(type, key, options)),
    createSubresource: (type, key, sub, body) =>
      record({ verb: 'create', ...where(type, key, sub) }, () =>
        inner.createSubresource(type, key, sub, body),
      ),
  };
  return { transport, requests };
}

/** A rule's verb that no request used. */
export interface UnusedGrant {
  permission: Permission;
  verb: Verb;
}

/** What {@link auditRbac} found. */
export interface RbacAudit {
  /** Requests the server refused (403): a rule is missing. */
  missing: AuditedRequest[];
  /** Verbs of rules no request needed: too much granted, unless justified. */
  unused: UnusedGrant[];
}

// The API server authorizes an apply of an object not there yet as `create` too (an apply of a
// subresource creates nothing); the recording cannot see whether the object was there, so a
// granted apply counts as a use of the create it may need.
const sentAs = (r: AuditedRequest, verb: Verb) =>
  r.verb === verb || (verb === 'create' && r.apply === true && !r.resource.includes('/'));

const covers = (p: Permission, verb: Verb, r: AuditedRequest) =>
  sentAs(r, verb) &&
  r.group === p.group &&
  r.resource === p.resource &&
  (p.namespace === undefined || r.namespace === p.namespace) &&
  (!p.resourceNames?.length || (r.name !== undefined && p.resourceNames.includes(r.name)));

/**
 * The manager's own grants a run may well not use, each with why: a repeated event patches its
 * series, and a run that records no event twice sends no such patch.
 */
const MANAGER_JUSTIFIED: Readonly<Record<string, string>> = {
  [`patch ${EVENTS_PERMISSION.group}/${EVENTS_PERMISSION.resource}`]: 'a repeated event patches its series',
};

/**
 * Compares the requests an operator sent with the rules it was given: the refused ones, and each
 * rule's verbs that no granted request used (a `list` counts as used with its rule's `watch`: the
 * informer's fallback from a watch-list stream; a server-side apply counts as a `create` too, as
 * the API server authorizes one that makes the object; the manager's events `patch` may stay
 * unused). `justified` names other grants that may stay unused, as `verb resource` or
 * `verb group/resource` (e.g. `delete configmaps`), each with its reason.
 */
export function auditRbac(
  permissions: readonly Permission[],
  requests: readonly AuditedRequest[],
  justified: Readonly<Record<string, string>> = {},
): RbacAudit {
  const mayStayUnused = { ...MANAGER_JUSTIFIED, ...justified };
  const granted = requests.filter((r) => r.refused === undefined);
  const used = (permission: Permission, verb: Verb): boolean =>
    granted.some((r) => covers(permission, verb, r)) ||
    // An informer streams its list inside a watch (watch-list); it sends a LIST only when the
    // server refuses the stream or it fails, so a watch used implies the list it falls back to.
    (verb === 'list' && permission.verbs.includes('watch') && used(permission, 'watch'));
  const unused = permissions.flatMap((permission) =>
    permission.verbs
      .filter((verb) => !used(permission, verb))
      .filter((verb) => {
        const resource = permission.group
          ? `${permission.group}/${permission.resource}`
          : permission.resource;
        return !(`${verb} ${resource}` in mayStayUnused || `${verb} ${permission.resource}` in mayStayUnused);
      })
      .map((verb) => ({ permission, verb })),
  );
  return { missing: requests.filter((r) => r.refused !== undefined), unused };
}
