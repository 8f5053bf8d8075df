import type {
  DeleteOptions,
  KubeObject,
  ListOptions,
  ListResult,
  ObjectKey,
  PatchOptions,
  PatchType,
  ResourceType,
  WatchOptions,
  WriteOptions,
} from '../api/types.js';
import { type Clock, realClock, sleep } from '../clock.js';
import type { ApiTransport, WatchCallbacks, WatchHandle } from '../transport/transport.js';
import { listObjects } from './fake-reads.js';
import { ClusterState, clone, type KindOptions } from './fake-state.js';
import { WatchHub } from './fake-watches.js';
import { createObject, deleteObject, patchObject, successStatus, writeObject } from './fake-writes.js';
import { type FakeRequest, type FaultHook, Faults, type Verb } from './faults.js';

export type { KindOptions } from './fake-state.js';
export type { FakeRequest, FaultHook, Verb } from './faults.js';

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
 *
 * Its parts: `ClusterState` (objects, revisions, history), the writes of fake-writes.ts, the
 * lists of fake-reads.ts, a `WatchHub` and `Faults`; this class is the transport over them.
 */
export class FakeCluster implements ApiTransport {
  /** Delay before each request is served, on the cluster's clock. */
  latencyMs: number;
  private readonly clock: Clock;
  private readonly state: ClusterState;
  private readonly watches: WatchHub;
  private readonly faults = new Faults();

  constructor(options: FakeClusterOptions = {}) {
    this.clock = options.clock ?? realClock;
    this.latencyMs = options.latencyMs ?? 0;
    this.state = new ClusterState(this.clock, options.seed ?? 1, (entry) => this.watches.deliverAll(entry));
    this.watches = new WatchHub(this.state);
    for (const k of options.kinds ?? []) {
      if (Array.isArray(k)) this.registerKind(k[0], k[1]);
      else this.registerKind(k);
    }
  }

  /** Makes a kind known to the cluster; requests on unregistered kinds answer 404. Idempotent. */
  registerKind(type: ResourceType, options: KindOptions = {}): this {
    this.state.registerKind(type, options);
    return this;
  }

  // ---------------------------------------------------------------------------------------------
  // Test-side access (synchronous, no faults, no latency)

  /** The current resourceVersion of the whole cluster. */
  currentResourceVersion(): string {
    return String(this.state.revision);
  }

  /** Copies of the current objects of a kind, sorted by namespace/name. */
  objects<T extends KubeObject>(type: ResourceType<T>, namespace?: string): T[] {
    const kind = this.state.kind(type);
    return [...kind.objects.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, o]) => o)
      .filter((o) => namespace === undefined || o.metadata.namespace === namespace)
      .map((o) => clone(o) as T);
  }

  /** A copy of one object, or undefined. */
  getObject<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey): T | undefined {
    const o = this.state.kind(type).objects.get(this.state.keyFor(type, key));
    return o === undefined ? undefined : (clone(o) as T);
  }

  /** Creates objects directly (registering the kind if needed), bypassing faults and latency. */
  seed<T extends KubeObject>(type: ResourceType<T>, ...objects: T[]): T[] {
    this.registerKind(type);
    return objects.map((o) => createObject(this.state, type, o, {}) as T);
  }

  /**
   * Forgets the change history up to now, as etcd compaction does: a watch or continue token from
   * an older resourceVersion then answers 410 Gone. Returns the compaction resourceVersion.
   */
  compact(): string {
    return String(this.state.compact());
  }

  /** Sends a BOOKMARK carrying the current resourceVersion to every watch that allows bookmarks. */
  sendBookmarks(): void {
    this.watches.sendBookmarks();
  }

  /**
   * Ends every open watch: cleanly (no error) or with `error` (as a broken connection would).
   * Returns how many watches were closed.
   */
  dropWatches(error?: Error): number {
    return this.watches.dropWatches(error);
  }

  /** Number of open watches. */
  openWatches(): number {
    return this.watches.openWatches();
  }

  /**
   * Makes the next `count` requests of `verb` (or of any verb, with `'*'`) fail with `error`
   * (an Error, or an HTTP code turned into an ApiError).
   */
  failNext(verb: Verb | '*', error: Error | number, count = 1): void {
    this.faults.failNext(verb, error, count);
  }

  /** Adds a fault hook consulted on every request; returns a function removing it. */
  addFault(hook: FaultHook): () => void {
    return this.faults.addHook(hook);
  }

  /** Removes every pending `failNext` fault and every fault hook. */
  clearFaults(): void {
    this.faults.clear();
  }

  /** How many requests of `verb` (or of all verbs) were received, faulted ones included. */
  requestCount(verb?: Verb): number {
    return this.faults.requestCount(verb);
  }

  // ---------------------------------------------------------------------------------------------
  // ApiTransport

  get<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey, subresource?: string): Promise<T> {
    return this.serve({ verb: 'get', type, key }, () => {
      if (subresource !== undefined && subresource !== 'status')
        throw this.state.notFound(type, key.name, subresource);
      return clone(this.state.mustGet(type, key)) as T;
    });
  }

  list<T extends KubeObject>(type: ResourceType<T>, options: ListOptions = {}): Promise<ListResult<T>> {
    return this.serve(
      { verb: 'list', type, options },
      () => listObjects(this.state, type, options) as ListResult<T>,
    );
  }

  watch<T extends KubeObject>(
    type: ResourceType<T>,
    options: WatchOptions,
    callbacks: WatchCallbacks<T>,
  ): Promise<WatchHandle> {
    return this.serve({ verb: 'watch', type, options }, () =>
      this.watches.open(type, options, callbacks as unknown as WatchCallbacks<KubeObject>),
    );
  }

  create<T extends KubeObject>(type: ResourceType<T>, object: T, options: WriteOptions = {}): Promise<T> {
    return this.serve({ verb: 'create', type, key: keyOfObject(object), options }, () => {
      if (options.subresource)
        throw this.state.notFound(type, object.metadata?.name ?? '', options.subresource);
      return createObject(this.state, type, object, options) as T;
    });
  }

  update<T extends KubeObject>(type: ResourceType<T>, object: T, options: WriteOptions = {}): Promise<T> {
    const key = keyOfObject(object);
    return this.serve({ verb: 'update', type, key, options }, () => {
      const current = this.state.mustGet(type, key);
      return writeObject(this.state, type, current, clone(object), options, 'Update') as T;
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
      () => patchObject(this.state, type, key, patchType, body, options) as T,
    );
  }

  delete<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    options: DeleteOptions = {},
  ): Promise<unknown> {
    return this.serve({ verb: 'delete', type, key, options }, () =>
      deleteObject(this.state, type, key, options),
    );
  }

  /** Supports `eviction` (deletes the object, honouring finalizers); other subresources answer 404. */
  createSubresource(
    type: ResourceType,
    key: ObjectKey,
    subresource: string,
    _body: unknown,
  ): Promise<unknown> {
    return this.serve({ verb: 'createSubresource', type, key }, () => {
      if (subresource !== 'eviction') throw this.state.notFound(type, key.name, subresource);
      deleteObject(this.state, type, key, {});
      return successStatus(type, key.name);
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Request plumbing

  private async serve<R>(request: FakeRequest, handler: () => R): Promise<R> {
    this.faults.count(request);
    // Always answer asynchronously, as a network round trip would.
    if (this.latencyMs > 0) await sleep(this.clock, this.latencyMs);
    else await Promise.resolve();
    const fault = this.faults.errorFor(request);
    if (fault) throw fault;
    return handler();
  }
}

function keyOfObject(o: KubeObject): ObjectKey {
  return { namespace: o.metadata?.namespace, name: o.metadata?.name ?? '' };
}
