/**
 * The shapes every layer of the runtime shares: what a kind is, what an object looks like, and the
 * options of list and watch. Kept free of client-node's generated classes so that objects stay plain
 * JSON (cheap to cache, freeze and compare).
 */

/** Identifies a kind on the API server: enough to build its REST paths. Declare it once per kind. */
export interface ResourceType<T extends KubeObject = KubeObject> {
  /** API group; `''` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Lower-case plural used in REST paths, e.g. `configmaps`. */
  readonly plural: string;
  /** Whether objects live in a namespace. */
  readonly namespaced: boolean;
  /**
   * Read, list and watch only objects' metadata (`PartialObjectMetadata`, through the Accept
   * header): for caches of kinds whose bodies are large. Made by {@link metadataOnly}.
   */
  readonly metadataOnly?: boolean;
  /** Phantom field carrying the TypeScript type; never set at run time. */
  readonly __type?: T;
}

/** An object of which only the metadata was read (`meta.k8s.io/v1` `PartialObjectMetadata`). */
export interface PartialObjectMetadata extends KubeObject {
  apiVersion?: string;
  kind?: string;
}

const metadataTypes = new WeakMap<ResourceType, ResourceType<PartialObjectMetadata>>();

/**
 * The same kind, read as metadata only: gets, lists and watches answer `PartialObjectMetadata`
 * (name, namespace, labels, annotations, owner references, resourceVersion...), never the body.
 * The same object for the same type, so informers of it are shared.
 * @example
 * const secretNames = metadataOnly(Secret); // a cache of Secrets' metadata, not their data
 */
export function metadataOnly(type: ResourceType): ResourceType<PartialObjectMetadata> {
  if (type.metadataOnly) return type as ResourceType<PartialObjectMetadata>;
  let meta = metadataTypes.get(type);
  if (!meta) {
    const { __type: _phantom, ...fields } = type;
    meta = Object.freeze({ ...fields, metadataOnly: true });
    metadataTypes.set(type, meta);
  }
  return meta;
}

/** `apiVersion` as written in objects: `v1` for the core group, `group/version` otherwise. */
export function apiVersionOf(type: ResourceType): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

/**
 * Declares a kind once, with its TypeScript type, for use by the client, the cache and controllers.
 * Without a type argument its objects are {@link UnstructuredObject}s.
 * @example
 * const Widget = defineResource<Widget>({ group: 'example.dev', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });
 */
export function defineResource<T extends KubeObject = UnstructuredObject>(
  type: Omit<ResourceType<T>, '__type'>,
): ResourceType<T> {
  return Object.freeze({ ...type });
}

/** An owner reference, as in `metav1.OwnerReference`. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Object metadata; the fields the runtime reads, plus whatever else the server sends. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: unknown[];
  [field: string]: unknown;
}

/**
 * Any Kubernetes object as plain JSON: its type fields and metadata. A kind declares its other
 * top-level fields (`spec`, `status`, `data`...) by extending it, so tsc rejects a misspelled one;
 * code that reads fields it does not know the type of uses {@link UnstructuredObject}. (A type
 * alias, not an interface: an alias has an implicit index signature, so a value typed only as
 * `T extends KubeObject` still converts to an UnstructuredObject.)
 */
export type KubeObject = {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
};

/** A Kubernetes object whose top-level fields beyond {@link KubeObject}'s are not typed. */
export interface UnstructuredObject extends KubeObject {
  [field: string]: unknown;
}

/** Where an object lives: its namespace (absent for cluster-scoped kinds) and name. */
export interface ObjectKey {
  namespace?: string;
  name: string;
}

/** Options of a LIST request. */
export interface ListOptions {
  /** Restrict to one namespace; omit for all namespaces (or a cluster-scoped kind). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size; the server may return a `continue` token. */
  limit?: number;
  continue?: string;
  /** `'0'` lets the server answer from its watch cache; omit for a quorum read. */
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
}

/** One page of a LIST. */
export interface ListResult<T extends KubeObject = KubeObject> {
  items: T[];
  /** The list's resourceVersion: watch from here to see every later change. Opaque. */
  resourceVersion: string;
  /** Present when more pages follow. */
  continue?: string;
}

/** Options of a WATCH request. */
export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Start after this resourceVersion (opaque; never compare numerically). */
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  /** Server-side timeout; the server ends the watch cleanly after it. */
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
  resourceVersionMatch?: 'NotOlderThan';
  /**
   * Client-side: end the watch with an error when nothing (not even a bookmark) arrived for this
   * long, so a half-open connection cannot stall a reflector. `0` disables it; omitted uses the
   * transport's default. Transports without a network may ignore it.
   */
  idleTimeoutMs?: number;
}

/** An API status object, as sent in errors and in watch ERROR events. */
export interface ApiStatus {
  kind?: 'Status';
  apiVersion?: string;
  status?: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: Array<{ reason?: string; message?: string; field?: string }>;
    retryAfterSeconds?: number;
  };
}

/** One event of a watch stream. */
export type WatchEvent<T extends KubeObject = KubeObject> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T }
  | { type: 'ERROR'; status: ApiStatus };

/** How a PATCH body is to be read. */
export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

/** Options of writes. */
export interface WriteOptions {
  fieldManager?: string;
  dryRun?: boolean;
  /** Write the `status` subresource (or another subresource such as `eviction`). */
  subresource?: string;
}

/** Options of a PATCH. */
export interface PatchOptions extends WriteOptions {
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
}

/** Options of a DELETE. */
export interface DeleteOptions {
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}
