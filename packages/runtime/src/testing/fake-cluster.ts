import { deepFreeze } from '../cache/deep-freeze.js';
import { ApiError, apiError } from '../client/errors.js';
import {
  type FieldSelector,
  type LabelSelector,
  parseFieldSelector,
  parseLabelSelector,
} from '../client/selectors.js';
import type { ApiTransport, WatchCallbacks, WatchHandle } from '../client/transport.js';
import {
  type ApiStatus,
  apiVersionOf,
  type DeleteOptions,
  type KubeObject,
  type ListOptions,
  type ListResult,
  type ObjectKey,
  type PatchOptions,
  type PatchType,
  type ResourceType,
  type WatchOptions,
  type WriteOptions,
} from '../client/types.js';
import { type Clock, realClock, sleep } from '../clock.js';
import { FakeWatch } from './fake-watch.js';
import { jsonEqual, jsonPatch, mergePatch } from './patch.js';

/** How the in-memory cluster treats a kind. */
export interface KindOptions {
  /**
   * Whether the kind has a `status` subresource: then main-resource writes ignore `status`, status
   * writes change only `status`, and create drops `status`. Default: true, except for built-in kinds
   * known to have no status (ConfigMap, Secret, ...).
   */
  statusSubresource?: boolean;
}

/** The verbs of {@link ApiTransport}, as named in fault injection. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'createSubresource';

/** A request as fault hooks see it. */
export interface FakeRequest {
  readonly verb: Verb;
  readonly type: ResourceType;
  readonly key?: ObjectKey;
  readonly options?: unknown;
}

/** Decides whether a request fails: return the error to answer with, or undefined to let it pass. */
export type FaultHook = (request: FakeRequest) => Error | undefined;

/** Options of {@link FakeCluster}. */
export interface FakeClusterOptions {
  /** Drives latency, watch timeouts and timestamps; use a `ManualClock` for deterministic tests. */
  clock?: Clock;
  /** Delay before every request is served (default 0). Read on each request, so tests may change it. */
  latencyMs?: number;
  /** Kinds to register up front. */
  kinds?: Array<ResourceType | [ResourceType, KindOptions]>;
  /** Seed of the generator behind `generateName` suffixes (default 1). */
  seed?: number;
}

interface KindState {
  readonly type: ResourceType;
  readonly statusSubresource: boolean;
  // Invariant: every stored object is deep-frozen and is the latest state of its key.
  readonly objects: Map<string, KubeObject>;
}

interface HistoryEntry {
  readonly rv: number;
  readonly kindKey: string;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: KubeObject;
  /** The state before this change (absent for ADDED). */
  readonly prev?: KubeObject;
}

interface WatchFilter {
  readonly kindKey: string;
  readonly namespace: string | undefined;
  readonly labels: LabelSelector;
  readonly fields: FieldSelector;
  /** Only changes after this revision are sent. */
  readonly after: number;
}

interface Fault {
  readonly verb: Verb | '*';
  readonly error: Error;
  remaining: number;
}

// Built-in kinds without a status subresource.
const NO_STATUS = new Set([
  '/ConfigMap',
  '/Secret',
  '/ServiceAccount',
  '/Endpoints',
  '/Event',
  'events.k8s.io/Event',
  'coordination.k8s.io/Lease',
  'rbac.authorization.k8s.io/Role',
  'rbac.authorization.k8s.io/RoleBinding',
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'discovery.k8s.io/EndpointSlice',
]);

const REASONS: Record<number, string> = {
  400: 'BadRequest',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Expired',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

const kindKeyOf = (type: ResourceType) => `${type.group}/${type.plural}`;
const objectKeyOf = (namespace: string | undefined, name: string) =>
  namespace ? `${namespace}/${name}` : name;
const clone = <T>(v: T): T => structuredClone(v);

/** Everything of an object except metadata, status and the type fields: what bumps `generation`. */
function specOf(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...spec } = obj;
  return spec;
}

/**
 * An in-memory Kubernetes API server implementing {@link ApiTransport}, for unit and property tests.
 *
 * Semantics it keeps: one global, increasing resourceVersion (opaque strings to callers); uid,
 * creationTimestamp and `generation: 1` on create, `generation` bumped on any change outside
 * metadata and status; status subresources; optimistic concurrency (409 Conflict on a stale
 * resourceVersion); AlreadyExists, NotFound; `generateName`; finalizers (delete sets
 * `deletionTimestamp`, the object goes when its last finalizer does); delete preconditions;
 * no-op writes do not change the resourceVersion; list with selectors, namespaces and consistent
 * `limit`/`continue` pages; watch from a resourceVersion with replay of history; `compact()` after
 * which old resourceVersions answer 410 Gone; bookmarks; fault injection; latency on the clock.
 *
 * Approximations (use envtest when they matter): strategic merge patch is applied as a JSON merge
 * patch (lists are replaced, not merged by key); server-side apply is a merge patch recorded in
 * `managedFields` under the field manager, with no field ownership or conflict detection; updates
 * without a resourceVersion are accepted unconditionally for every kind; no validation, defaulting,
 * admission or garbage collection (`propagationPolicy` and grace periods are ignored); namespaces
 * need not exist.
 */
export class FakeCluster implements ApiTransport {
  /** Delay before each request is served, on the cluster's clock. */
  latencyMs: number;
  private readonly clock: Clock;
  private readonly kinds = new Map<string, KindState>();
  private revision = 100;
  /** Changes at or before this revision are forgotten. */
  private compactedAt = 0;
  // Invariant: ordered by rv; holds every change after `compactedAt`.
  private history: HistoryEntry[] = [];
  private readonly watches = new Map<FakeWatch, WatchFilter>();
  private faults: Fault[] = [];
  private readonly hooks = new Set<FaultHook>();
  private readonly counts = new Map<Verb, number>();
  private uidCounter = 0;
  private randomState: number;

  constructor(options: FakeClusterOptions = {}) {
    this.clock = options.clock ?? realClock;
    this.latencyMs = options.latencyMs ?? 0;
    this.randomState = options.seed ?? 1;
    for (const k of options.kinds ?? []) {
      if (Array.isArray(k)) this.registerKind(k[0], k[1]);
      else this.registerKind(k);
    }
  }

  /** Makes a kind known to the cluster; requests on unregistered kinds answer 404. Idempotent. */
  registerKind(type: ResourceType, options: KindOptions = {}): this {
    const key = kindKeyOf(type);
    if (!this.kinds.has(key)) {
      const statusSubresource = options.statusSubresource ?? !NO_STATUS.has(`${type.group}/${type.kind}`);
      this.kinds.set(key, { type, statusSubresource, objects: new Map() });
    }
    return this;
  }

  // ---------------------------------------------------------------------------------------------
  // Test-side access (synchronous, no faults, no latency)

  /** The current resourceVersion of the whole cluster. */
  currentResourceVersion(): string {
    return String(this.revision);
  }

  /** Copies of the current objects of a kind, sorted by namespace/name. */
  objects<T extends KubeObject>(type: ResourceType<T>, namespace?: string): T[] {
    const kind = this.kind(type);
    return [...kind.objects.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, o]) => o)
      .filter((o) => namespace === undefined || o.metadata.namespace === namespace)
      .map((o) => clone(o) as T);
  }

  /** A copy of one object, or undefined. */
  getObject<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey): T | undefined {
    const o = this.kind(type).objects.get(this.keyFor(type, key));
    return o === undefined ? undefined : (clone(o) as T);
  }

  /** Creates objects directly (registering the kind if needed), bypassing faults and latency. */
  seed<T extends KubeObject>(type: ResourceType<T>, ...objects: T[]): T[] {
    this.registerKind(type);
    return objects.map((o) => this.doCreate(type, o, {}) as T);
  }

  /**
   * Forgets the change history up to now, as etcd compaction does: a watch or continue token from
   * an older resourceVersion then answers 410 Gone. Returns the compaction resourceVersion.
   */
  compact(): string {
    this.compactedAt = this.revision;
    this.history = [];
    return String(this.revision);
  }

  /** Sends a BOOKMARK carrying the current resourceVersion to every watch that allows bookmarks. */
  sendBookmarks(): void {
    for (const [watch, filter] of this.watches) {
      if (!watch.allowBookmarks) continue;
      const type = (this.kinds.get(filter.kindKey) as KindState).type;
      watch.push({ type: 'BOOKMARK', object: this.bookmark(type) });
    }
  }

  /**
   * Ends every open watch: cleanly (no error) or with `error` (as a broken connection would).
   * Returns how many watches were closed.
   */
  dropWatches(error?: Error): number {
    const open = [...this.watches.keys()];
    for (const w of open) w.close(error);
    return open.length;
  }

  /** Number of open watches. */
  openWatches(): number {
    return this.watches.size;
  }

  /**
   * Makes the next `count` requests of `verb` (or of any verb, with `'*'`) fail with `error`
   * (an Error, or an HTTP code turned into an ApiError).
   */
  failNext(verb: Verb | '*', error: Error | number, count = 1): void {
    const err =
      typeof error === 'number'
        ? apiError(error, REASONS[error] ?? 'Unknown', `injected fault (${error})`)
        : error;
    this.faults.push({ verb, error: err, remaining: count });
  }

  /** Adds a fault hook consulted on every request; returns a function removing it. */
  addFault(hook: FaultHook): () => void {
    this.hooks.add(hook);
    return () => this.hooks.delete(hook);
  }

  /** Removes every pending `failNext` fault and every fault hook. */
  clearFaults(): void {
    this.faults = [];
    this.hooks.clear();
  }

  /** How many requests of `verb` (or of all verbs) were received, faulted ones included. */
  requestCount(verb?: Verb): number {
    if (verb) return this.counts.get(verb) ?? 0;
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }

  // ---------------------------------------------------------------------------------------------
  // ApiTransport

  get<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey, subresource?: string): Promise<T> {
    return this.serve({ verb: 'get', type, key }, () => {
      if (subresource !== undefined && subresource !== 'status')
        throw this.notFound(type, key.name, subresource);
      return clone(this.mustGet(type, key)) as T;
    });
  }

  list<T extends KubeObject>(type: ResourceType<T>, options: ListOptions = {}): Promise<ListResult<T>> {
    return this.serve({ verb: 'list', type, options }, () => this.doList(type, options) as ListResult<T>);
  }

  watch<T extends KubeObject>(
    type: ResourceType<T>,
    options: WatchOptions,
    callbacks: WatchCallbacks<T>,
  ): Promise<WatchHandle> {
    return this.serve({ verb: 'watch', type, options }, () =>
      this.doWatch(type, options, callbacks as unknown as WatchCallbacks<KubeObject>),
    );
  }

  create<T extends KubeObject>(type: ResourceType<T>, object: T, options: WriteOptions = {}): Promise<T> {
    return this.serve({ verb: 'create', type, key: keyOfObject(object), options }, () => {
      if (options.subresource) throw this.notFound(type, object.metadata?.name ?? '', options.subresource);
      return this.doCreate(type, object, options) as T;
    });
  }

  update<T extends KubeObject>(type: ResourceType<T>, object: T, options: WriteOptions = {}): Promise<T> {
    const key = keyOfObject(object);
    return this.serve({ verb: 'update', type, key, options }, () => {
      const current = this.mustGet(type, key);
      return this.write(type, current, clone(object), options, 'Update') as T;
    });
  }

  patch<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    patchType: PatchType,
    body: unknown,
    options: PatchOptions = {},
  ): Promise<T> {
    return this.serve(
      { verb: 'patch', type, key, options },
      () => this.doPatch(type, key, patchType, body, options) as T,
    );
  }

  delete<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    options: DeleteOptions = {},
  ): Promise<unknown> {
    return this.serve({ verb: 'delete', type, key, options }, () => this.doDelete(type, key, options));
  }

  /** Supports `eviction` (deletes the object, honouring finalizers); other subresources answer 404. */
  createSubresource(
    type: ResourceType,
    key: ObjectKey,
    subresource: string,
    _body: unknown,
  ): Promise<unknown> {
    return this.serve({ verb: 'createSubresource', type, key }, () => {
      if (subresource !== 'eviction') throw this.notFound(type, key.name, subresource);
      this.doDelete(type, key, {});
      return successStatus(type, key.name);
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Request plumbing

  private async serve<R>(request: FakeRequest, handler: () => R): Promise<R> {
    this.counts.set(request.verb, (this.counts.get(request.verb) ?? 0) + 1);
    // Always answer asynchronously, as a network round trip would.
    if (this.latencyMs > 0) await sleep(this.clock, this.latencyMs);
    else await Promise.resolve();
    const fault = this.takeFault(request);
    if (fault) throw fault;
    return handler();
  }

  private takeFault(request: FakeRequest): Error | undefined {
    const i = this.faults.findIndex((f) => f.verb === '*' || f.verb === request.verb);
    if (i >= 0) {
      const f = this.faults[i] as Fault;
      if (--f.remaining <= 0) this.faults.splice(i, 1);
      return f.error;
    }
    for (const hook of this.hooks) {
      const err = hook(request);
      if (err) return err;
    }
    return undefined;
  }

  private kind(type: ResourceType): KindState {
    const k = this.kinds.get(kindKeyOf(type));
    if (!k)
      throw apiError(404, 'NotFound', 'the server could not find the requested resource', {
        kind: type.kind,
        group: type.group,
      });
    return k;
  }

  private keyFor(type: ResourceType, key: ObjectKey): string {
    return objectKeyOf(type.namespaced ? key.namespace : undefined, key.name);
  }

  private notFound(type: ResourceType, name: string, subresource?: string): ApiError {
    const what = subresource ? `${type.plural}/${subresource}` : type.plural;
    const group = type.group ? `${what}.${type.group}` : what;
    return apiError(404, 'NotFound', `${group} "${name}" not found`, {
      name,
      group: type.group,
      kind: type.plural,
    });
  }

  private mustGet(type: ResourceType, key: ObjectKey): KubeObject {
    const o = this.kind(type).objects.get(this.keyFor(type, key));
    if (!o) throw this.notFound(type, key.name);
    return o;
  }

  private timestamp(): string {
    return new Date(this.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  private nextRandom(): number {
    // mulberry32: tiny, seeded, good enough for name suffixes.
    this.randomState = (this.randomState + 0x6d2b79f5) | 0;
    let t = this.randomState;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  private bookmark(type: ResourceType): KubeObject {
    return {
      apiVersion: apiVersionOf(type),
      kind: type.kind,
      metadata: { resourceVersion: String(this.revision) },
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Writes

  /** Stores `next` (or removes the key) under a fresh revision and tells the watches. */
  private commit(
    kind: KindState,
    key: string,
    eventType: HistoryEntry['type'],
    object: KubeObject,
    prev: KubeObject | undefined,
  ): KubeObject {
    const rv = ++this.revision;
    const stored = deepFreeze({ ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } });
    if (eventType === 'DELETED') kind.objects.delete(key);
    else kind.objects.set(key, stored);
    const entry: HistoryEntry = { rv, kindKey: kindKeyOf(kind.type), type: eventType, object: stored, prev };
    this.history.push(entry);
    for (const [watch, filter] of this.watches) this.deliver(watch, filter, entry);
    return stored;
  }

  private managedFields(
    current: KubeObject | undefined,
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
      time: this.timestamp(),
      fieldsType: 'FieldsV1',
      fieldsV1: {},
    };
    if (subresource) entry.subresource = subresource;
    const others = existing.filter(
      (e) => !(e.manager === manager && e.operation === operation && e.subresource === subresource),
    );
    return [...others, entry];
  }

  private doCreate(
    type: ResourceType,
    input: KubeObject,
    options: WriteOptions,
    operation: 'Update' | 'Apply' = 'Update',
  ): KubeObject {
    const kind = this.kind(type);
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
          suffix += 'bcdfghjklmnpqrstvwxz2456789'[Math.floor(this.nextRandom() * 27)];
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
      uid: this.nextUid(),
      generation: 1,
      creationTimestamp: this.timestamp(),
    } as KubeObject['metadata'];
    const managed = this.managedFields(undefined, type, options.fieldManager, operation);
    if (managed) metadata.managedFields = managed;
    const { apiVersion: _a, kind: _k, metadata: _m, ...body } = obj;
    // With a status subresource, status is not writable through create.
    if (kind.statusSubresource) delete body.status;
    const created: KubeObject = { apiVersion: apiVersionOf(type), kind: type.kind, metadata, ...body };
    if (options.dryRun) return created;
    return clone(this.commit(kind, key, 'ADDED', created, undefined));
  }

  private nextUid(): string {
    const n = (++this.uidCounter).toString(16).padStart(12, '0');
    return `00000000-0000-4000-8000-${n}`;
  }

  /**
   * The one path of every update (PUT, PATCH, status writes): applies subresource rules,
   * optimistic concurrency, generation, finalizer completion and the no-op rule.
   */
  private write(
    type: ResourceType,
    current: KubeObject,
    proposed: KubeObject,
    options: WriteOptions,
    operation: 'Update' | 'Apply',
  ): KubeObject {
    const kind = this.kind(type);
    const meta = proposed.metadata ?? {};
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
      throw apiError(
        409,
        'Conflict',
        `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${current.metadata.uid}`,
      );
    }
    const sub = options.subresource;
    if (sub !== undefined && sub !== 'status') throw this.notFound(type, current.metadata.name ?? '', sub);

    let next: KubeObject;
    if (sub === 'status') {
      // A status write changes the status and nothing else.
      if (!kind.statusSubresource) throw this.notFound(type, current.metadata.name ?? '', sub);
      next = { ...current, metadata: { ...current.metadata } };
      if (proposed.status === undefined) delete next.status;
      else next.status = proposed.status;
    } else {
      const { apiVersion: _a, kind: _k, metadata: _m, ...body } = proposed;
      next = {
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
      if (kind.statusSubresource) {
        if (current.status === undefined) delete next.status;
        else next.status = current.status;
      }
    }

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
    // Writing what is already stored changes nothing: same resourceVersion, no event.
    if (jsonEqual(next, current)) return clone(current);
    if (!jsonEqual(specOf(next), specOf(current)))
      next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    const managed = this.managedFields(current, type, options.fieldManager, operation, sub);
    if (managed) next.metadata.managedFields = managed;
    if (options.dryRun) return clone(next);

    const key = this.keyFor(type, {
      namespace: current.metadata.namespace,
      name: current.metadata.name ?? '',
    });
    const finished =
      next.metadata.deletionTimestamp !== undefined && (next.metadata.finalizers ?? []).length === 0;
    return clone(this.commit(kind, key, finished ? 'DELETED' : 'MODIFIED', next, current));
  }

  private doPatch(
    type: ResourceType,
    key: ObjectKey,
    patchType: PatchType,
    body: unknown,
    options: PatchOptions,
  ): KubeObject {
    const kind = this.kind(type);
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
      const current = kind.objects.get(this.keyFor(type, key));
      if (!current) {
        // Server-side apply creates what does not exist.
        const obj = mergePatch({}, body) as KubeObject;
        obj.metadata = {
          ...obj.metadata,
          name: key.name,
          ...(type.namespaced ? { namespace: key.namespace } : {}),
        };
        return this.doCreate(type, obj, options, 'Apply');
      }
      return this.write(type, current, mergePatch(current, body) as KubeObject, options, 'Apply');
    }
    const current = this.mustGet(type, key);
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
    return this.write(type, current, patched as KubeObject, options, 'Update');
  }

  private doDelete(type: ResourceType, key: ObjectKey, options: DeleteOptions): unknown {
    const kind = this.kind(type);
    const current = this.mustGet(type, key);
    const pre = options.preconditions;
    if (pre?.uid !== undefined && pre.uid !== current.metadata.uid) {
      throw apiError(
        409,
        'Conflict',
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`,
      );
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw apiError(
        409,
        'Conflict',
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`,
      );
    }
    const storeKey = this.keyFor(type, key);
    if ((current.metadata.finalizers ?? []).length > 0) {
      // Already terminating: nothing changes.
      if (current.metadata.deletionTimestamp) return clone(current);
      const next = {
        ...current,
        metadata: { ...current.metadata, deletionTimestamp: this.timestamp(), deletionGracePeriodSeconds: 0 },
      };
      if (options.dryRun) return clone(next);
      return clone(this.commit(kind, storeKey, 'MODIFIED', next, current));
    }
    if (options.dryRun) return successStatus(type, key.name, current.metadata.uid);
    this.commit(kind, storeKey, 'DELETED', current, current);
    return successStatus(type, key.name, current.metadata.uid);
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  private selectors(options: {
    labelSelector?: string;
    fieldSelector?: string;
  }): [LabelSelector, FieldSelector] {
    try {
      return [parseLabelSelector(options.labelSelector), parseFieldSelector(options.fieldSelector)];
    } catch (err) {
      throw apiError(400, 'BadRequest', (err as Error).message);
    }
  }

  private parseRevision(rv: string): number {
    if (!/^[0-9]+$/.test(rv)) throw apiError(400, 'BadRequest', `invalid resourceVersion "${rv}"`);
    return Number(rv);
  }

  private gone(rv: number): ApiError {
    return apiError(410, 'Expired', `too old resource version: ${rv} (${this.compactedAt})`);
  }

  /**
   * The objects of a kind as they were at revision `rv`, rebuilt by undoing later history.
   * Possible only back to the compaction point.
   */
  private stateAt(kind: KindState, rv: number): Map<string, KubeObject> {
    if (rv < this.compactedAt) throw this.gone(rv);
    const state = new Map(kind.objects);
    const kindKey = kindKeyOf(kind.type);
    for (let i = this.history.length - 1; i >= 0; i--) {
      const e = this.history[i] as HistoryEntry;
      if (e.rv <= rv) break;
      if (e.kindKey !== kindKey) continue;
      const key = objectKeyOf(e.object.metadata.namespace, e.object.metadata.name ?? '');
      if (e.type === 'ADDED') state.delete(key);
      else state.set(key, e.prev as KubeObject);
    }
    return state;
  }

  private doList(type: ResourceType, options: ListOptions): ListResult {
    const kind = this.kind(type);
    const [labels, fields] = this.selectors(options);
    let snapshot = this.revision;
    let state = kind.objects;
    let after: string | undefined;
    if (options.continue) {
      const token = decodeContinue(options.continue);
      if (token.rv < this.compactedAt) {
        throw apiError(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
        );
      }
      snapshot = token.rv;
      after = token.after;
      state = this.stateAt(kind, snapshot);
    } else if (options.resourceVersionMatch === 'Exact' && options.resourceVersion) {
      snapshot = this.parseRevision(options.resourceVersion);
      state = this.stateAt(kind, snapshot);
    }
    // Lists always serve the latest state otherwise (as a quorum read does, which also satisfies '0').
    const keys = [...state.keys()].sort();
    const items: KubeObject[] = [];
    let next: string | undefined;
    for (const key of keys) {
      if (after !== undefined && key <= after) continue;
      const o = state.get(key) as KubeObject;
      if (type.namespaced && options.namespace && o.metadata.namespace !== options.namespace) continue;
      if (!labels.matches(o.metadata.labels) || !fields.matches(o)) continue;
      if (options.limit !== undefined && options.limit > 0 && items.length === options.limit) {
        next = encodeContinue(
          snapshot,
          objectKeyOf(items.at(-1)?.metadata.namespace, items.at(-1)?.metadata.name ?? ''),
        );
        break;
      }
      items.push(clone(o));
    }
    return { items, resourceVersion: String(snapshot), ...(next ? { continue: next } : {}) };
  }

  private doWatch(
    type: ResourceType,
    options: WatchOptions,
    callbacks: WatchCallbacks<KubeObject>,
  ): WatchHandle {
    const kind = this.kind(type);
    const [labels, fields] = this.selectors(options);
    const namespace = type.namespaced ? options.namespace || undefined : undefined;
    const rvText = options.resourceVersion;
    const fromNow = rvText === undefined || rvText === '' || rvText === '0';
    const start = fromNow ? this.revision : this.parseRevision(rvText);
    const filter: WatchFilter = {
      kindKey: kindKeyOf(type),
      namespace,
      labels,
      fields,
      after: Math.max(start, this.revision),
    };
    const watch = new FakeWatch(
      callbacks,
      this.clock,
      (w) => this.watches.delete(w),
      options.allowWatchBookmarks === true,
    );

    if (!fromNow && !options.sendInitialEvents && start < this.compactedAt) {
      // Like etcd after compaction: the stream opens, says 410 and ends.
      const status: ApiStatus = {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: 410,
        reason: 'Expired',
        message: this.gone(start).message,
      };
      watch.push({ type: 'ERROR', status });
      watch.close();
      return watch;
    }
    this.watches.set(watch, filter);
    if (fromNow || options.sendInitialEvents) {
      // Synthetic ADDED events for the current state, as the server sends for RV unset/'0'.
      for (const key of [...kind.objects.keys()].sort()) {
        const o = kind.objects.get(key) as KubeObject;
        if (this.matches(filter, o)) watch.push({ type: 'ADDED', object: o });
      }
      if (options.sendInitialEvents && watch.allowBookmarks) {
        const b = this.bookmark(type);
        b.metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
        watch.push({ type: 'BOOKMARK', object: b });
      }
    } else {
      for (const e of this.history) {
        if (e.rv > start) this.deliver(watch, { ...filter, after: start }, e);
      }
    }
    if (options.timeoutSeconds !== undefined && options.timeoutSeconds > 0)
      watch.closeAfter(options.timeoutSeconds);
    return watch;
  }

  private matches(filter: WatchFilter, o: KubeObject): boolean {
    if (filter.namespace !== undefined && o.metadata.namespace !== filter.namespace) return false;
    return filter.labels.matches(o.metadata.labels) && filter.fields.matches(o);
  }

  /** Sends one change to one watch, turning selector transitions into ADDED/DELETED as the server does. */
  private deliver(watch: FakeWatch, filter: WatchFilter, e: HistoryEntry): void {
    if (e.kindKey !== filter.kindKey || e.rv <= filter.after) return;
    const now = this.matches(filter, e.object);
    if (e.type !== 'MODIFIED') {
      if (now) watch.push({ type: e.type, object: e.object });
      return;
    }
    const before = this.matches(filter, e.prev as KubeObject);
    if (before && now) watch.push({ type: 'MODIFIED', object: e.object });
    else if (now) watch.push({ type: 'ADDED', object: e.object });
    else if (before) watch.push({ type: 'DELETED', object: e.object });
  }
}

function keyOfObject(o: KubeObject): ObjectKey {
  return { namespace: o.metadata?.namespace, name: o.metadata?.name ?? '' };
}

function successStatus(type: ResourceType, name: string, uid?: string): ApiStatus {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Success',
    details: { name, group: type.group, kind: type.plural, ...(uid ? { uid } : {}) },
  } as ApiStatus;
}

function encodeContinue(rv: number, after: string): string {
  return Buffer.from(JSON.stringify({ rv, after })).toString('base64url');
}

function decodeContinue(token: string): { rv: number; after: string } {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      rv?: unknown;
      after?: unknown;
    };
    if (typeof t.rv === 'number' && typeof t.after === 'string') return { rv: t.rv, after: t.after };
  } catch {
    // fall through
  }
  throw apiError(400, 'BadRequest', 'invalid continue token');
}
