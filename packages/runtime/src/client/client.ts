import type { ApplyConfiguration } from '../api/apply-configuration.js';
import { apiError, isGone, isNotFound } from '../api/errors.js';
import {
  apiVersionOf,
  type DeleteOptions,
  type KubeObject,
  type ListOptions,
  type ListResult,
  type ObjectKey,
  type ObjectMeta,
  type PatchOptions,
  type PatchType,
  type ResourceType,
  type WriteOptions,
} from '../api/types.js';
import { type Clock, realClock } from '../clock.js';
import { deleteBody } from '../transport/rest-request.js';
import type { ApiTransport } from '../transport/transport.js';
import { Pod } from './builtin.js';
import type { CachedReader } from './cached-reader.js';
import { OwnWrites } from './own-writes.js';

/** Options of a {@link Client}. */
export interface ClientOptions {
  /** Serves `get`/`list` of cached kinds; without it every read goes to the server. */
  cache?: CachedReader;
  /** Field manager of writes that name none. Server-side apply needs one, here or per call. */
  fieldManager?: string;
  /** Page size of a list called without `limit` (every page is fetched). Default 500. */
  pageSize?: number;
  /**
   * Cached reads never older than this client's own writes: a write's answer is kept until the
   * cache has seen it (or for a minute), and a cached get or list answers with it meanwhile.
   * Default true (with a cache).
   */
  readYourWrites?: boolean;
  /** Ages the kept writes; default the wall clock. */
  clock?: Clock;
}

/** Options of a read. */
export interface ReadOptions {
  /** Read from the API server even when the kind is cached. */
  direct?: boolean;
}

/** Options of {@link Client.list}. */
export interface ClientListOptions extends ListOptions, ReadOptions {}

/** Options of server-side apply. */
export interface ApplyOptions {
  /** Who owns the applied fields; defaults to the client's `fieldManager`. */
  fieldManager?: string;
  /** Take ownership of fields another manager owns instead of failing with a conflict. */
  force?: boolean;
  dryRun?: boolean;
}

const DEFAULT_PAGE_SIZE = 500;

/**
 * The typed client reconcilers use: reads from the cache when the kind is cached (or from the
 * server with `{ direct: true }`), writes always to the server.
 *
 * Every method rejects with an `ApiError` for an answer of the server; test it with `isNotFound`,
 * `isConflict`, ... A cache miss on `get` is a NotFound too, so callers need not care where the
 * read was served from.
 *
 * @example
 * const cm = await client.get(ConfigMap, { namespace: 'default', name: 'settings' });
 * await client.apply(ConfigMap, { metadata: { name: 'out', namespace: 'default' }, data: { a: '1' } },
 *   { fieldManager: 'my-controller' });
 */
export class Client {
  private readonly cache: CachedReader | undefined;
  private readonly fieldManager: string | undefined;
  private readonly pageSize: number;
  private readonly writes: OwnWrites | undefined;

  constructor(
    /** Where writes (and uncached reads) go. */
    readonly transport: ApiTransport,
    options: ClientOptions = {},
  ) {
    this.cache = options.cache;
    this.fieldManager = options.fieldManager;
    this.pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    if (options.cache && options.readYourWrites !== false)
      this.writes = new OwnWrites(options.cache, options.clock ?? realClock);
  }

  /**
   * Whether the cache has seen this client's last writes of these objects (a create, an update, a
   * delete), or they are older than a minute: what {@link Expectations} waits for. Always true
   * without a cache or with `readYourWrites: false`.
   */
  writesObserved(type: ResourceType, keys: readonly ObjectKey[]): boolean {
    return this.writes?.observed(type, keys) ?? true;
  }

  /** Reads one object; rejects with NotFound when it does not exist (in the cache, for a cached kind). */
  async get<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    options: ReadOptions = {},
  ): Promise<T> {
    if (!options.direct && this.cache?.isCached(type)) {
      const cached = this.cache.get(type, key);
      const object = this.writes ? this.writes.get(type, key, cached) : cached;
      if (object === undefined) throw notFound(type, key.name);
      return object;
    }
    return this.transport.get(type, key);
  }

  /**
   * Lists objects. Without `limit`, fetches every page (following `continue`); when a continue token
   * expires (410) midway, lists again in one request, so the result is one consistent snapshot.
   * With `limit`, returns that one page and its `continue` token.
   *
   * A cached kind is listed from the cache (namespace and label selector only; `resourceVersion` is
   * then empty), and so is a kind cached only by an informer of exactly the list's label selector
   * (a controller's selected watch); asking for a field selector, a page or a resourceVersion reads
   * from the server.
   */
  async list<T extends KubeObject>(
    type: ResourceType<T>,
    options: ClientListOptions = {},
  ): Promise<ListResult<T>> {
    const { direct, ...listOptions } = options;
    const selection = { namespace: listOptions.namespace, labelSelector: listOptions.labelSelector };
    // The option checks first: they cost nothing, holdsList searches the kind's informers.
    const cache = !direct && servableFromCache(listOptions) ? this.cache : undefined;
    if (cache && (cache.isCached(type) || cache.holdsList?.(type, selection))) {
      const items = cache.list(type, selection);
      return { items: this.writes ? this.writes.list(type, items, selection) : items, resourceVersion: '' };
    }
    if (listOptions.limit !== undefined || listOptions.continue !== undefined) {
      return this.transport.list(type, listOptions);
    }
    return this.listAllPages(type, listOptions);
  }

  /** Creates an object; `apiVersion` and `kind` are filled from the type when missing. */
  async create<T extends KubeObject>(
    type: ResourceType<T>,
    object: T,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.kept(
      type,
      options,
      this.transport.create(type, withTypeMeta(type, object), this.writeOptions(options)),
    );
  }

  /** Replaces an object (PUT); fails with Conflict when `metadata.resourceVersion` is stale. */
  async update<T extends KubeObject>(
    type: ResourceType<T>,
    object: T,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.kept(
      type,
      options,
      this.transport.update(type, withTypeMeta(type, object), this.writeOptions(options)),
    );
  }

  /** Replaces the status subresource of an object; the rest of `object` is ignored by the server. */
  async updateStatus<T extends KubeObject>(
    type: ResourceType<T>,
    object: T,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.update(type, object, { ...options, subresource: 'status' });
  }

  /** Patches an object: `merge` (RFC 7386), `json` (RFC 6902), `strategic` (built-in kinds) or `apply`. */
  async patch<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    patchType: PatchType,
    body: unknown,
    options: PatchOptions = {},
  ): Promise<T> {
    return this.kept(
      type,
      options,
      this.transport.patch(type, key, patchType, body, this.writeOptions(options)),
    );
  }

  /** Patches the status subresource of an object. */
  async patchStatus<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    patchType: PatchType,
    body: unknown,
    options: PatchOptions = {},
  ): Promise<T> {
    return this.patch(type, key, patchType, body, { ...options, subresource: 'status' });
  }

  /**
   * Server-side apply: the server merges `object` into the live object and records the fields as
   * owned by the field manager. Fails with Conflict when another manager owns a field with a
   * different value, unless `force` is set. `managedFields` in `object` are dropped (the server
   * refuses them).
   * @throws Error when no field manager is given here or in the client options.
   */
  async apply<T extends KubeObject>(
    type: ResourceType<T>,
    object: ApplyConfiguration<T>,
    options: ApplyOptions = {},
  ): Promise<T> {
    return this.applyTo(type, object, options, undefined);
  }

  /** Server-side apply of the status subresource. */
  async applyStatus<T extends KubeObject>(
    type: ResourceType<T>,
    object: ApplyConfiguration<T>,
    options: ApplyOptions = {},
  ): Promise<T> {
    return this.applyTo(type, object, options, 'status');
  }

  /**
   * Deletes an object. With `preconditions`, the server refuses (Conflict) when the uid or
   * resourceVersion no longer match; `propagationPolicy` says what happens to its dependents.
   */
  async delete<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    options: DeleteOptions = {},
  ): Promise<void> {
    this.keptDelete(type, key, options, await this.transport.delete(type, key, options));
  }

  /** Deletes an object; resolves `false` when it did not exist (NotFound), `true` otherwise. */
  async deleteIfExists<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    options: DeleteOptions = {},
  ): Promise<boolean> {
    try {
      this.keptDelete(type, key, options, await this.transport.delete(type, key, options));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /**
   * Evicts a Pod through the eviction subresource, so that PodDisruptionBudgets are honoured.
   * Rejects with TooManyRequests (429) when a budget forbids it now; retry later.
   */
  async evict(podKey: ObjectKey, deleteOptions?: DeleteOptions): Promise<void> {
    const eviction: Record<string, unknown> = {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: podKey.name, namespace: podKey.namespace },
    };
    if (deleteOptions) eviction.deleteOptions = deleteBody(deleteOptions);
    await this.transport.createSubresource(Pod, podKey, 'eviction', eviction);
  }

  private async applyTo<T extends KubeObject>(
    type: ResourceType<T>,
    object: ApplyConfiguration<T>,
    options: ApplyOptions,
    subresource: string | undefined,
  ): Promise<T> {
    const fieldManager = options.fieldManager ?? this.fieldManager;
    if (!fieldManager) throw new Error(`apply ${type.kind}: a fieldManager is required`);
    const { managedFields: _dropped, ...metadata }: ObjectMeta = object.metadata;
    const { name, namespace } = metadata;
    if (!name) throw new Error(`apply ${type.kind}: metadata.name is required`);
    const body = { ...withTypeMeta(type as ResourceType, object as KubeObject), metadata };
    const written = this.transport.patch(type, { namespace, name }, 'apply', body, {
      fieldManager,
      force: options.force,
      dryRun: options.dryRun,
      subresource,
    });
    return this.kept(type, options, written);
  }

  /** A write's answer, kept for read-your-own-writes (not a dry run's: nothing was written). */
  private async kept<T extends KubeObject>(
    type: ResourceType<T>,
    options: { dryRun?: boolean },
    written: Promise<T>,
  ): Promise<T> {
    const object = await written;
    if (this.writes && !options.dryRun) this.writes.written(type, object);
    return object;
  }

  /** A delete's answer: the object while finalizers hold it, else a Status naming its uid. */
  private keptDelete(type: ResourceType, key: ObjectKey, options: DeleteOptions, answer: unknown): void {
    if (!this.writes || options.dryRun) return;
    const answered = answer as { kind?: string; metadata?: { name?: string }; details?: { uid?: string } };
    if (answered?.kind !== 'Status' && answered?.metadata?.name)
      this.writes.written(type, answer as KubeObject);
    else this.writes.deleted(type, key, answered?.details?.uid);
  }

  private writeOptions<O extends WriteOptions>(options: O): O {
    if (options.fieldManager !== undefined || this.fieldManager === undefined) return options;
    return { ...options, fieldManager: this.fieldManager };
  }

  private async listAllPages<T extends KubeObject>(
    type: ResourceType<T>,
    options: ListOptions,
  ): Promise<ListResult<T>> {
    const items: T[] = [];
    let page = await this.transport.list(type, { ...options, limit: this.pageSize });
    for (;;) {
      for (const item of page.items) items.push(item);
      if (!page.continue) return { items, resourceVersion: page.resourceVersion };
      try {
        // The token pins the snapshot: the server refuses resourceVersion next to it.
        const { resourceVersion: _rv, resourceVersionMatch: _match, ...rest } = options;
        page = await this.transport.list(type, { ...rest, limit: this.pageSize, continue: page.continue });
      } catch (err) {
        if (!isGone(err)) throw err;
        // The snapshot was compacted away between pages; one unpaged list cannot expire.
        return this.transport.list(type, options);
      }
    }
  }
}

/** The list options a cache can answer: no field selector, no paging, no resourceVersion semantics. */
function servableFromCache(options: ListOptions): boolean {
  return (
    !options.fieldSelector &&
    options.limit === undefined &&
    options.continue === undefined &&
    options.resourceVersion === undefined &&
    options.resourceVersionMatch === undefined
  );
}

/** The object with `apiVersion` and `kind` of its type when it lacks them; the caller's object is not changed. */
function withTypeMeta<T extends KubeObject>(type: ResourceType<T>, object: T): T {
  if (object.apiVersion && object.kind) return object;
  return { ...object, apiVersion: object.apiVersion ?? apiVersionOf(type), kind: object.kind ?? type.kind };
}

/** The NotFound the server would answer for a missing object. */
function notFound(type: ResourceType, name: string) {
  const resource = type.group === '' ? type.plural : `${type.plural}.${type.group}`;
  return apiError(404, 'NotFound', `${resource} "${name}" not found`, {
    name,
    group: type.group,
    kind: type.plural,
  });
}
