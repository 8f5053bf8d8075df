/**
 * How a request to the API server is addressed and encoded: REST paths from a {@link ResourceType},
 * query strings from list/watch/write options, and the Content-Type of each patch type. Pure
 * functions, shared by the HTTP transport and its tests.
 */
import type {
  DeleteOptions,
  ListOptions,
  PatchType,
  ResourceType,
  WatchOptions,
  WriteOptions,
} from '../api/types.js';

/** What a REST path points at: a collection (no name), an object, or one of its subresources. */
export interface ResourcePathParts {
  namespace?: string;
  name?: string;
  subresource?: string;
}

/**
 * The REST path of a collection, an object or a subresource.
 *
 * Core group kinds live under `/api/v1`, others under `/apis/{group}/{version}`; namespaced kinds
 * add `/namespaces/{ns}`. A namespaced kind without a namespace addresses the collection across all
 * namespaces (valid for list and watch only). A namespace given for a cluster-scoped kind is ignored,
 * as the server would ignore it.
 *
 * @throws Error when a subresource is asked for without a name, or an object of a namespaced kind
 *   is addressed without its namespace.
 */
export function resourcePath(type: ResourceType, parts: ResourcePathParts = {}): string {
  const segments: string[] = [
    type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`,
  ];
  if (type.namespaced && parts.namespace) {
    segments.push('namespaces', encodeURIComponent(parts.namespace));
  } else if (type.namespaced && parts.name !== undefined) {
    throw new Error(`${type.kind} "${parts.name}" is namespaced: a namespace is required`);
  }
  segments.push(type.plural);
  if (parts.name !== undefined) {
    if (parts.name === '') throw new Error(`${type.kind}: an empty name cannot be addressed`);
    segments.push(encodeURIComponent(parts.name));
  }
  if (parts.subresource) {
    if (parts.name === undefined)
      throw new Error(`${type.kind}: subresource ${parts.subresource} needs a name`);
    segments.push(parts.subresource);
  }
  return segments.join('/');
}

/** Query parameters; `undefined` values are left out. */
export type QueryParams = Record<string, string | number | boolean | undefined>;

/** Encodes query parameters as `?a=1&b=2`, or `''` when there are none. */
export function queryString(params: QueryParams): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) search.append(key, String(value));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** The query of a LIST request (the namespace goes into the path, not here). */
export function listQuery(options: ListOptions = {}): QueryParams {
  return {
    labelSelector: options.labelSelector || undefined,
    fieldSelector: options.fieldSelector || undefined,
    limit: options.limit,
    continue: options.continue || undefined,
    resourceVersion: options.resourceVersion,
    resourceVersionMatch: options.resourceVersionMatch,
  };
}

/** The query of a WATCH request. */
export function watchQuery(options: WatchOptions): QueryParams {
  return {
    watch: 1,
    labelSelector: options.labelSelector || undefined,
    fieldSelector: options.fieldSelector || undefined,
    resourceVersion: options.resourceVersion,
    resourceVersionMatch: options.resourceVersionMatch,
    allowWatchBookmarks: options.allowWatchBookmarks || undefined,
    sendInitialEvents: options.sendInitialEvents,
    timeoutSeconds: options.timeoutSeconds,
  };
}

/** The query of a create, update or patch. */
export function writeQuery(options: WriteOptions & { force?: boolean } = {}): QueryParams {
  return {
    fieldManager: options.fieldManager,
    // The server only knows the value `All`.
    dryRun: options.dryRun ? 'All' : undefined,
    force: options.force === undefined ? undefined : options.force,
  };
}

/** The `metav1.DeleteOptions` body of a DELETE. */
export function deleteBody(options: DeleteOptions = {}): Record<string, unknown> {
  const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
  if (options.propagationPolicy) body.propagationPolicy = options.propagationPolicy;
  if (options.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = options.gracePeriodSeconds;
  if (options.preconditions) body.preconditions = options.preconditions;
  if (options.dryRun) body.dryRun = ['All'];
  return body;
}

/** The Content-Type that tells the server how to read a PATCH body. */
export function patchContentType(patchType: PatchType): string {
  switch (patchType) {
    case 'merge':
      return 'application/merge-patch+json';
    case 'json':
      return 'application/json-patch+json';
    case 'strategic':
      return 'application/strategic-merge-patch+json';
    case 'apply':
      // Server-side apply takes YAML; JSON is valid YAML, so the body stays JSON.
      return 'application/apply-patch+yaml';
  }
}
