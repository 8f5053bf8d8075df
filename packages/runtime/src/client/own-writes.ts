/**
 * Read-your-own-writes: what this process wrote, kept until the cache has seen it. A reconcile that
 * writes and is run again at once (its own write's event, a requeue) would otherwise read the
 * cache from before its write and act twice: a second create answered 409, a status computed from
 * a stale copy. The client records each write's answer here; a cached read answers with the newer
 * of the cache's object and ours, never older than what this process wrote.
 *
 * Nothing here runs per watch event: an entry is dropped when a read, or a sweep as the ledger
 * grows, finds the cache caught up, or after `ttlMs` (a write someone else overtook unseen).
 */

import type { KubeObject, ObjectKey, ResourceType } from '../api/types.js';
import type { Clock } from '../clock.js';
import type { CachedReader } from './cached-reader.js';
import { parseLabelSelector } from './selectors.js';

/** What we wrote to one object: its state as the server answered, or that we deleted it. */
type Written =
  | { readonly object: KubeObject; readonly at: number }
  | { readonly deletedUid: string | undefined; readonly at: number };

/**
 * Whether resourceVersion `a` is older than `b`. Kubernetes' resourceVersions are decimal etcd
 * revisions (comparable since KEP-5504); anything else is only ever equal or not, and an unequal
 * one counts as older, so our write is kept until the TTL.
 */
export function olderResourceVersion(a: string | undefined, b: string | undefined): boolean {
  if (a === b) return false;
  if (a === undefined || b === undefined) return a === undefined;
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return true;
  return a.length !== b.length ? a.length < b.length : a < b;
}

/** Whether the cache's object (or its absence) shows our write. */
export function cacheCaughtUp(cached: KubeObject | undefined, written: Written): boolean {
  if ('object' in written) {
    if (cached === undefined) return false;
    const ours = written.object.metadata;
    // Someone deleted and re-created it since: ours is history.
    if (cached.metadata.uid !== ours.uid) return true;
    return !olderResourceVersion(cached.metadata.resourceVersion, ours.resourceVersion);
  }
  return (
    cached === undefined || (written.deletedUid !== undefined && cached.metadata.uid !== written.deletedUid)
  );
}

const typeKeys = new WeakMap<ResourceType, string>();
function typeKey(type: ResourceType): string {
  let key = typeKeys.get(type);
  if (key === undefined) {
    key = `${type.group}/${type.plural}${type.metadataOnly ? '#metadata' : ''}`;
    typeKeys.set(type, key);
  }
  return key;
}

const objectKey = (namespace: string | undefined, name: string) => `${namespace ?? ''}/${name}`;

/** The writes of one kind not yet seen. */
interface OfType {
  readonly type: ResourceType;
  readonly entries: Map<string, Written>;
}

/** The ledger of this process's writes not yet seen by its cache. */
export class OwnWrites {
  private readonly byType = new Map<string, OfType>();
  private size = 0;
  private sweepAbove = 256;

  constructor(
    private readonly cache: CachedReader,
    private readonly clock: Clock,
    private readonly ttlMs = 60_000,
  ) {}

  /** How many writes are waiting for the cache to see them. */
  get pending(): number {
    return this.size;
  }

  /** Records the server's answer to a write of a kind the cache holds (a copy, frozen as its objects are). */
  written<T extends KubeObject>(type: ResourceType<T>, answer: T): void {
    if (!this.kept(type) || !answer?.metadata?.name) return;
    // A write that removed the last finalizer of an object being deleted deleted it: the server
    // answers its last state, but it is gone (else lists would show it until the TTL).
    if (answer.metadata.deletionTimestamp && (answer.metadata.finalizers ?? []).length === 0) {
      this.deleted(type, answer.metadata as ObjectKey, answer.metadata.uid);
      return;
    }
    const object = this.cache.adopt ? this.cache.adopt(type, answer) : structuredClone(answer);
    this.put(type, objectKey(answer.metadata.namespace, answer.metadata.name), {
      object,
      at: this.clock.now(),
    });
  }

  /** Records a delete the server accepted (`uid`: of the object deleted, when known). */
  deleted(type: ResourceType, key: ObjectKey, uid: string | undefined): void {
    if (!this.kept(type)) return;
    const namespace = type.namespaced ? key.namespace : undefined;
    const deletedUid = uid ?? this.cache.get(type, { namespace, name: key.name })?.metadata.uid;
    this.put(type, objectKey(namespace, key.name), { deletedUid, at: this.clock.now() });
  }

  /** What a cached get answers: ours while the cache has not seen it, else the cache's. */
  get<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey, cached: T | undefined): T | undefined {
    if (this.size === 0) return cached;
    const entries = this.byType.get(typeKey(type))?.entries;
    const id = objectKey(type.namespaced ? key.namespace : undefined, key.name);
    const written = entries?.get(id);
    if (!written) return cached;
    if (this.settled(cached, written)) {
      this.drop(entries as Map<string, Written>, id);
      return cached;
    }
    return 'object' in written ? (written.object as T) : undefined;
  }

  /** What a cached list answers: the cache's items with ours in place of those it has not seen. */
  list<T extends KubeObject>(
    type: ResourceType<T>,
    items: T[],
    options: { namespace?: string; labelSelector?: string },
  ): T[] {
    const entries = this.size === 0 ? undefined : this.byType.get(typeKey(type))?.entries;
    if (!entries || entries.size === 0) return items;
    const listed = new Map<string, T>();
    for (const item of items) listed.set(objectKey(item.metadata.namespace, item.metadata.name ?? ''), item);
    const namespace = type.namespaced ? options.namespace || undefined : undefined;
    const selector = parseLabelSelector(options.labelSelector);
    for (const [id, written] of entries) {
      // Another namespace's write is not in this list: the reads that can hold it judge it.
      if (namespace !== undefined && !id.startsWith(`${namespace}/`)) continue;
      // Judged by the copy this list was read from (a selected informer's, which `get` does not
      // read), before ours replaces it; by the cache's own when the list does not hold it.
      const inList = listed.get(id);
      if (this.settled(inList ?? this.cache.get(type, idToKey(id)), written)) {
        if (this.everyReadSees(type, id, written, inList)) this.drop(entries, id);
      } else if (!('object' in written)) {
        listed.delete(id);
      } else {
        const meta = written.object.metadata;
        const inNamespace = namespace === undefined || meta.namespace === namespace;
        // Ours replaces the cache's; a write that moved it out of the selection takes it out.
        if (inNamespace && selector.matches(meta.labels)) listed.set(id, written.object as T);
        else listed.delete(id);
      }
    }
    return [...listed.values()];
  }

  /** Whether every write recorded for these objects has been seen by the cache (or expired). */
  observed(type: ResourceType, keys: readonly ObjectKey[]): boolean {
    // A kind held only in selections has no read by key to wait on (its lists settle its writes).
    if (!this.cache.isCached(type)) return true;
    const entries = this.byType.get(typeKey(type))?.entries;
    if (!entries) return true;
    for (const key of keys) {
      const id = objectKey(type.namespaced ? key.namespace : undefined, key.name);
      const written = entries.get(id);
      if (written === undefined) continue;
      if (!this.settled(this.cache.get(type, key), written)) return false;
      this.drop(entries, id);
    }
    return true;
  }

  /** Whether writes of `type` are kept: reads of it are served from the cache, whole or a selection. */
  private kept(type: ResourceType): boolean {
    return this.cache.isCached(type) || this.cache.holds?.(type) === true;
  }

  private settled(cached: KubeObject | undefined, written: Written): boolean {
    return cacheCaughtUp(cached, written) || this.clock.now() - written.at > this.ttlMs;
  }

  /**
   * Whether a write a list's copy has caught up with is caught up for every read, so it may go:
   *  1. not in the list: it was judged by the cache's own copy, the one a get reads;
   *  2. a kind held only in selections: there is no get of an unselected copy, lists are every read;
   *  3. else a get reads the unselected informer, which may lag the selected one: it must show it too.
   */
  private everyReadSees(
    type: ResourceType,
    id: string,
    written: Written,
    inList: KubeObject | undefined,
  ): boolean {
    if (inList === undefined) return true;
    if (!this.cache.isCached(type)) return true;
    return this.settledByKey(type, id, written);
  }

  /** Settled as a read by key sees it; a kind held only in selections has none, so only its TTL. */
  private settledByKey(type: ResourceType, id: string, written: Written): boolean {
    if (!this.cache.isCached(type)) return this.clock.now() - written.at > this.ttlMs;
    return this.settled(this.cache.get(type, idToKey(id)), written);
  }

  private put(type: ResourceType, id: string, written: Written): void {
    const key = typeKey(type);
    let ofType = this.byType.get(key);
    if (!ofType) {
      ofType = { type, entries: new Map() };
      this.byType.set(key, ofType);
    }
    if (!ofType.entries.has(id)) this.size++;
    ofType.entries.set(id, written);
    if (this.size > this.sweepAbove) this.sweep();
  }

  /** Drops what the cache has caught up with; amortized, as the ledger doubles. */
  private sweep(): void {
    for (const { type, entries } of this.byType.values())
      for (const [id, written] of entries) if (this.settledByKey(type, id, written)) this.drop(entries, id);
    this.sweepAbove = Math.max(256, this.size * 2);
  }

  private drop(entries: Map<string, Written>, id: string): void {
    if (entries.delete(id)) this.size--;
  }
}

function idToKey(id: string): ObjectKey {
  const slash = id.indexOf('/');
  const name = id.slice(slash + 1);
  return slash > 0 ? { namespace: id.slice(0, slash), name } : { name };
}
