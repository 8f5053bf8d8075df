import type { KubeObject, ObjectKey, ResourceType } from '../api/types.js';
import type { CachedReader } from '../client/cached-reader.js';
import { parseLabelSelector } from '../client/selectors.js';
import type { ApiTransport } from '../transport/transport.js';
import { deepFreeze, frozenCopy } from './deep-freeze.js';
import { type KindCacheOptions, KindOptionsTable } from './kind-options.js';
import { CacheSyncError, SharedInformer, type SharedInformerOptions } from './shared-informer.js';
import type { IndexFunction } from './store.js';

/** What an informer is restricted to. Informers are shared per (kind, restriction). */
export interface InformerRestriction {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/** Options of {@link InformerCache}; passed on to every informer it creates, but `byKind`. */
export type InformerCacheOptions = Omit<
  SharedInformerOptions<KubeObject>,
  'namespace' | 'labelSelector' | 'fieldSelector'
> & {
  /**
   * Per-kind options (controller-runtime's `ByObject`): a kind's transform, label and field
   * selectors, and namespaces. A source's own restriction wins over them.
   */
  byKind?: readonly KindCacheOptions[];
};

/** One informer's state (see {@link InformerCache.health}). */
export interface InformerHealth {
  /** What it watches, e.g. `configmaps (namespace=ops)`. */
  informer: string;
  synced: boolean;
  /** False while the server answers 404 for its kind. */
  served: boolean;
  /** How long its lists and watches have failed without a success between; 0 while healthy. */
  failingForMs: number;
}

interface Entry {
  readonly informer: SharedInformer<KubeObject>;
  readonly restriction: Readonly<InformerRestriction>;
  /** No selector but its kind's own: it holds every object the cache keeps of its kind. */
  readonly base: boolean;
}

/** The index every store gets, so namespaced reads need not scan. */
const NAMESPACE_INDEX = 'capstan:namespace';
const typeKeys = new WeakMap<ResourceType, string>();
/** `group/version/plural`, made once per type object: reads look it up on every get. */
function typeKeyOf(type: ResourceType): string {
  let key = typeKeys.get(type);
  if (key === undefined) {
    key = `${type.group}/${type.version}/${type.plural}${type.metadataOnly ? '#metadata' : ''}`;
    typeKeys.set(type, key);
  }
  return key;
}

/**
 * The process-wide set of informers: one per (kind, namespace, label selector, field selector),
 * created on first request and shared by every controller, and the {@link CachedReader} the Client
 * reads through.
 *
 * Reads pick an informer that covers the request: for a kind, an informer with no label or field
 * selector over all namespaces (or over the requested namespace). Informers restricted by a
 * selector serve only lists with exactly that selector.
 */
export class InformerCache implements CachedReader {
  private readonly entries = new Map<string, Entry>();
  /** The entries of each type (by type key), in creation order: what reads search. */
  private readonly byType = new Map<string, Entry[]>();
  private readonly indexers = new Map<string, Map<string, IndexFunction<KubeObject>>>();
  private started = false;
  private readonly kinds: KindOptionsTable;
  private readonly informerOptions: Omit<InformerCacheOptions, 'byKind'>;

  constructor(
    private readonly transport: ApiTransport,
    options: InformerCacheOptions = {},
  ) {
    const { byKind, ...informerOptions } = options;
    this.kinds = new KindOptionsTable(byKind);
    this.informerOptions = informerOptions;
  }

  /** The per-kind options of `type`'s kind (`byKind` of {@link InformerCacheOptions}). */
  kindOptions(type: ResourceType): KindCacheOptions | undefined {
    return this.kinds.of(type);
  }

  /**
   * The informer for `type` under `restriction`, created (and started, if the cache is started)
   * on first request. Every caller asking for the same restriction gets the same informer.
   */
  informerFor<T extends KubeObject>(
    type: ResourceType<T>,
    restriction: InformerRestriction = {},
  ): SharedInformer<T> {
    const kind = this.kinds.of(type);
    const base = !restriction.labelSelector?.trim() && !restriction.fieldSelector?.trim();
    const r = normalize(type, {
      ...restriction,
      labelSelector: restriction.labelSelector?.trim() || kind?.labelSelector,
      fieldSelector: restriction.fieldSelector?.trim() || kind?.fieldSelector,
    });
    const key = `${typeKeyOf(type)}|${r.namespace ?? ''}|${r.labelSelector ?? ''}|${r.fieldSelector ?? ''}`;
    let entry = this.entries.get(key);
    if (!entry) {
      const informer = new SharedInformer<KubeObject>(this.transport, type as ResourceType, {
        ...this.informerOptions,
        ...(kind?.transform ? { transform: kind.transform } : {}),
        ...r,
      });
      if (type.namespaced && r.namespace === undefined)
        informer.addIndex(NAMESPACE_INDEX, (o) => [o.metadata.namespace ?? '']);
      for (const [name, fn] of this.indexers.get(typeKeyOf(type)) ?? []) informer.addIndex(name, fn);
      entry = { informer, restriction: r, base };
      this.entries.set(key, entry);
      const ofType = this.byType.get(typeKeyOf(type));
      if (ofType) ofType.push(entry);
      else this.byType.set(typeKeyOf(type), [entry]);
      if (this.started) informer.start();
    }
    return entry.informer as unknown as SharedInformer<T>;
  }

  /** Starts every informer, and any created later. Idempotent. */
  start(): void {
    this.started = true;
    for (const { informer } of this.entries.values()) informer.start();
  }

  /** Stops every informer. */
  async stop(): Promise<void> {
    this.started = false;
    await Promise.all([...this.entries.values()].map((e) => e.informer.stop()));
    this.entries.clear();
    this.byType.clear();
  }

  /**
   * Resolves when every informer created so far has synced, or found its kind not served (a CRD
   * not installed yet: its controllers wait for it, see {@link InformerCache.unserved}).
   * @throws {@link CacheSyncError} naming the informers still unsynced after `timeoutMs`.
   */
  async waitForCacheSync(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const entries = [...this.entries.values()];
    const results = await Promise.allSettled(
      entries.map((e) => e.informer.waitForSync(timeoutMs, signal, true)),
    );
    const failed = entries.filter((_, i) => results[i]?.status === 'rejected');
    if (failed.length > 0) {
      const names = failed.map((e) => describe(e)).join(', ');
      throw new CacheSyncError(`caches not synced within ${timeoutMs} ms: ${names}`);
    }
  }

  /** Each informer's state, for health checks and metrics: what it watches, synced, served, failing. */
  health(): InformerHealth[] {
    return [...this.entries.values()].map((e) => ({
      informer: describe(e),
      synced: e.informer.hasSynced(),
      served: e.informer.kindServed(),
      failingForMs: e.informer.failingForMs(),
    }));
  }

  /** The informers whose kind the server does not serve now (a CRD missing), described. */
  unserved(): string[] {
    return [...this.entries.values()].filter((e) => !e.informer.kindServed()).map(describe);
  }

  /** True once every informer created so far has synced. */
  hasSynced(): boolean {
    return [...this.entries.values()].every((e) => e.informer.hasSynced());
  }

  /**
   * Declares an index over every informer of `type` (existing and future), queried with
   * {@link listByIndex}. E.g. `indexField(Pod, 'spec.nodeName', (p) => [p.spec.nodeName])`.
   */
  indexField<T extends KubeObject>(type: ResourceType<T>, name: string, fn: IndexFunction<T>): void {
    const typeKey = typeKeyOf(type);
    let byName = this.indexers.get(typeKey);
    if (!byName) {
      byName = new Map();
      this.indexers.set(typeKey, byName);
    }
    if (byName.has(name)) throw new Error(`index "${name}" of ${type.plural} already exists`);
    const generic = fn as IndexFunction<KubeObject>;
    byName.set(name, generic);
    for (const e of this.entriesOf(type)) e.informer.addIndex(name, generic);
  }

  /** Objects whose index `name` yields `value`, optionally in one namespace. */
  listByIndex<T extends KubeObject>(
    type: ResourceType<T>,
    name: string,
    value: string,
    options: { namespace?: string } = {},
  ): T[] {
    const entry = this.reader(type, options.namespace);
    if (!entry)
      throw new Error(
        `no informer caches ${type.plural}${options.namespace ? ` in ${options.namespace}` : ''}`,
      );
    const items = entry.informer.store.byIndex(name, value) as T[];
    return options.namespace ? items.filter((o) => o.metadata.namespace === options.namespace) : items;
  }

  isCached(type: ResourceType): boolean {
    return this.entriesOf(type).some((e) => e.base);
  }

  get<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey): T | undefined {
    const namespace = type.namespaced ? key.namespace : undefined;
    const entry = this.reader(type, namespace);
    return entry?.informer.store.getByName(namespace, key.name) as T | undefined;
  }

  list<T extends KubeObject>(
    type: ResourceType<T>,
    options: { namespace?: string; labelSelector?: string } = {},
  ): T[] {
    const namespace = type.namespaced ? options.namespace || undefined : undefined;
    const selector = options.labelSelector?.trim() || undefined;
    const exact = this.exactEntry(type, namespace, selector);
    const entry = exact ?? this.reader(type, namespace);
    if (!entry) return namespace === undefined && !selector ? this.acrossNamespaces(type) : [];
    const store = entry.informer.store;
    let items = (
      namespace && entry.restriction.namespace === undefined
        ? store.byIndex(NAMESPACE_INDEX, namespace)
        : store.list()
    ) as T[];
    if (selector && !exact) {
      const s = parseLabelSelector(selector);
      items = items.filter((o) => s.matches(o.metadata.labels));
    }
    return items;
  }

  /**
   * A copy of a write's answer made as cached objects are: transformed (by default managedFields
   * dropped) and frozen; `object` itself is left as it is.
   */
  adopt<T extends KubeObject>(type: ResourceType<T>, object: T): T {
    const transform = (this.kinds.of(type)?.transform ?? this.informerOptions.transform) as
      | ((o: T) => T)
      | undefined;
    return transform ? deepFreeze(transform(structuredClone(object))) : frozenCopy(object, true);
  }

  /** Whether any informer holds `type`, every object the cache keeps of it or a selection. */
  holds(type: ResourceType): boolean {
    return this.entriesOf(type).length > 0;
  }

  /** Whether an informer restricted by exactly this label selector holds the list whole. */
  holdsList(type: ResourceType, options: { namespace?: string; labelSelector?: string } = {}): boolean {
    const namespace = type.namespaced ? options.namespace || undefined : undefined;
    return this.exactEntry(type, namespace, options.labelSelector?.trim() || undefined) !== undefined;
  }

  /** An informer restricted by exactly this label selector: it holds the list's answer whole. */
  private exactEntry(type: ResourceType, namespace: string | undefined, selector: string | undefined) {
    if (selector === undefined) return undefined;
    return this.entriesOf(type).find(
      (e) =>
        e.restriction.labelSelector === selector &&
        e.restriction.fieldSelector === undefined &&
        (e.restriction.namespace === undefined || e.restriction.namespace === namespace),
    );
  }

  /** An unselected informer covering `namespace` (all namespaces when undefined), cluster-wide first. */
  private reader(type: ResourceType, namespace: string | undefined): Entry | undefined {
    // A loop, not filter/find: this runs on every cached read.
    let ofNamespace: Entry | undefined;
    for (const e of this.entriesOf(type)) {
      const r = e.restriction;
      if (!e.base) continue;
      if (r.namespace === undefined) return e;
      if (namespace !== undefined && r.namespace === namespace) ofNamespace ??= e;
    }
    return ofNamespace;
  }

  /** Every object of a kind cached per namespace (several namespaces, no cluster-wide informer). */
  private acrossNamespaces<T extends KubeObject>(type: ResourceType<T>): T[] {
    const items: T[] = [];
    for (const e of this.entriesOf(type)) if (e.base) items.push(...(e.informer.store.list() as T[]));
    return items;
  }

  private entriesOf(type: ResourceType): readonly Entry[] {
    return this.byType.get(typeKeyOf(type)) ?? [];
  }
}

function normalize(type: ResourceType, r: InformerRestriction): InformerRestriction {
  const out: InformerRestriction = {};
  if (type.namespaced && r.namespace) out.namespace = r.namespace;
  if (r.labelSelector?.trim()) out.labelSelector = r.labelSelector.trim();
  if (r.fieldSelector?.trim()) out.fieldSelector = r.fieldSelector.trim();
  return out;
}

function describe(e: Entry): string {
  const r = e.restriction;
  const parts = [
    r.namespace && `namespace=${r.namespace}`,
    r.labelSelector && `labels=${r.labelSelector}`,
    r.fieldSelector && `fields=${r.fieldSelector}`,
  ].filter(Boolean);
  return `${e.informer.type.plural}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}
