import type { KubeObject } from '../api/types.js';
import { deepFreeze } from './deep-freeze.js';

/** A change of the store, as handlers see it. */
export type StoreChange<T extends KubeObject = KubeObject> =
  /** `initialList`: the object was in the first list (the informer's start), not added since. */
  | { readonly type: 'add'; readonly object: T; readonly initialList?: boolean }
  | { readonly type: 'update'; readonly old: T; readonly object: T }
  /** `finalStateUnknown`: the object vanished while we were not watching (seen only by a relist). */
  | { readonly type: 'delete'; readonly object: T; readonly finalStateUnknown: boolean };

/** Computes the values under which an object is indexed (e.g. its owner's uid, its node name). */
export type IndexFunction<T extends KubeObject = KubeObject> = (object: T) => readonly string[];

/** What a {@link Store.replace} changed. */
export interface StoreDiff<T extends KubeObject = KubeObject> {
  readonly added: T[];
  readonly updated: Array<{ readonly old: T; readonly new: T }>;
  /** Objects that were in the store but not in the new list, in their last known state. */
  readonly deleted: T[];
}

/** The store key of an object: `namespace/name`, or `name` for cluster-scoped objects. */
export function storeKey(object: KubeObject): string;
export function storeKey(namespace: string | undefined, name: string): string;
export function storeKey(a: KubeObject | string | undefined, name?: string): string {
  if (typeof a === 'object')
    return a.metadata.namespace ? `${a.metadata.namespace}/${a.metadata.name}` : (a.metadata.name ?? '');
  return a ? `${a}/${name}` : (name ?? '');
}

/** Read-only view of a {@link Store}. */
/**
 * Whether a listed object replaces the stored one of its key: its resourceVersion differs (or the
 * stored one has none). An unchanged object keeps its stored instance.
 */
export function listedChanges(stored: KubeObject, listed: KubeObject): boolean {
  return (
    stored.metadata.resourceVersion === undefined ||
    stored.metadata.resourceVersion !== listed.metadata.resourceVersion
  );
}

export interface ReadableStore<T extends KubeObject = KubeObject> {
  get(key: string): T | undefined;
  /** The object `name` in `namespace` (`''` or undefined for cluster-scoped): `get` without a key string. */
  getByName(namespace: string | undefined, name: string): T | undefined;
  list(): T[];
  keys(): string[];
  byIndex(indexName: string, value: string): T[];
  readonly size: number;
}

/** The namespace an object is stored under: `''` for cluster-scoped objects (as in {@link storeKey}). */
const namespaceOf = (object: KubeObject): string => object.metadata.namespace || '';

/** Splits a {@link storeKey} back into namespace and name (neither may contain a `/`). */
function splitKey(key: string): [namespace: string, name: string] {
  const slash = key.indexOf('/');
  return slash === -1 ? ['', key] : [key.slice(0, slash), key.slice(slash + 1)];
}

/**
 * The objects of one informer, keyed by `namespace/name`, with optional secondary indexes.
 *
 * Objects are deep-frozen on the way in and handed out as they are: no copies, one instance per
 * object, and a reader that tries to mutate one gets a TypeError (in strict-mode code) instead of
 * corrupting the cache.
 *
 * Inside, objects are held by namespace, then by their own name string, and indexes hold the
 * objects themselves: no `namespace/name` string is made or kept per object (with 100,000 objects
 * that is megabytes, and garbage on every event). {@link Store.list} therefore gives the objects
 * grouped by namespace.
 */
export class Store<T extends KubeObject = KubeObject> implements ReadableStore<T> {
  private readonly namespaces = new Map<string, Map<string, T>>();
  private count = 0;
  private readonly indexers = new Map<string, IndexFunction<T>>();
  // Invariant: for every index, value → objects holds exactly the stored objects that yield that
  // value. Empty sets are removed so the maps shrink with the store.
  private readonly indexes = new Map<string, Map<string, Set<T>>>();

  get size(): number {
    return this.count;
  }

  /**
   * Adds a secondary index and builds it over the current objects.
   * @throws when an index of that name exists.
   */
  addIndex(name: string, fn: IndexFunction<T>): void {
    if (this.indexers.has(name)) throw new Error(`index "${name}" already exists`);
    this.indexers.set(name, fn);
    const index = new Map<string, Set<T>>();
    this.indexes.set(name, index);
    for (const byName of this.namespaces.values())
      for (const obj of byName.values()) addTo(index, fn(obj), obj);
  }

  /** Whether an index of that name exists. */
  hasIndex(name: string): boolean {
    return this.indexers.has(name);
  }

  get(key: string): T | undefined {
    const [namespace, name] = splitKey(key);
    return this.getByName(namespace, name);
  }

  /** The object `name` in `namespace` (`''` or undefined for cluster-scoped): {@link get} without a key string. */
  getByName(namespace: string | undefined, name: string): T | undefined {
    return this.namespaces.get(namespace || '')?.get(name);
  }

  list(): T[] {
    const out: T[] = [];
    for (const byName of this.namespaces.values()) for (const obj of byName.values()) out.push(obj);
    return out;
  }

  keys(): string[] {
    const out: string[] = [];
    for (const [namespace, byName] of this.namespaces)
      for (const name of byName.keys()) out.push(storeKey(namespace, name));
    return out;
  }

  /**
   * Objects whose index function yielded `value`.
   * @throws when no index of that name exists.
   */
  byIndex(indexName: string, value: string): T[] {
    const index = this.indexes.get(indexName);
    if (!index) throw new Error(`no index named "${indexName}"`);
    const objects = index.get(value);
    return objects ? [...objects] : [];
  }

  /** Inserts or replaces an object (freezing it); returns the previous object under its key. */
  upsert(object: T): T | undefined {
    const namespace = namespaceOf(object);
    let byName = this.namespaces.get(namespace);
    if (!byName) {
      byName = new Map();
      this.namespaces.set(namespace, byName);
    }
    const name = object.metadata.name ?? '';
    const frozen = deepFreeze(object);
    const old = byName.get(name);
    byName.set(name, frozen);
    if (old === undefined) this.count++;
    this.reindex(old, frozen);
    return old;
  }

  /** Removes the object under `key`; returns it, or undefined when absent. */
  delete(key: string): T | undefined {
    const [namespace, name] = splitKey(key);
    return this.deleteByName(namespace, name);
  }

  /** {@link delete} without a key string. */
  deleteByName(namespace: string | undefined, name: string): T | undefined {
    const ns = namespace || '';
    const byName = this.namespaces.get(ns);
    const old = byName?.get(name);
    if (byName === undefined || old === undefined) return undefined;
    byName.delete(name);
    if (byName.size === 0) this.namespaces.delete(ns);
    this.count--;
    this.reindex(old, undefined);
    return old;
  }

  /**
   * Replaces the whole content with `objects` and reports the difference. An object whose
   * resourceVersion did not change counts as unchanged (the stored instance is kept).
   */
  replace(objects: readonly T[]): StoreDiff<T> {
    const diff: StoreDiff<T> = { added: [], updated: [], deleted: [] };
    // The stored instances that are in the new list; every other one is deleted afterwards. A
    // store empty before (the first list) has nothing to delete: no set of 100,000 objects then.
    const kept: Set<T> | undefined = this.count === 0 ? undefined : new Set<T>();
    for (const obj of objects) {
      const name = obj.metadata.name ?? '';
      const old = this.getByName(obj.metadata.namespace, name);
      if (old === undefined) {
        this.upsert(obj);
        const added = this.getByName(obj.metadata.namespace, name) as T;
        kept?.add(added);
        diff.added.push(added);
      } else if (listedChanges(old, obj)) {
        this.upsert(obj);
        const updated = this.getByName(obj.metadata.namespace, name) as T;
        // A second object of the same key in the list replaced the first: that one is gone again.
        kept?.delete(old);
        kept?.add(updated);
        diff.updated.push({ old, new: updated });
      } else kept?.add(old);
    }
    if (kept !== undefined && kept.size !== this.count) {
      for (const [namespace, byName] of [...this.namespaces])
        for (const [name, obj] of [...byName])
          if (!kept.has(obj)) diff.deleted.push(this.deleteByName(namespace, name) as T);
    }
    return diff;
  }

  private reindex(old: T | undefined, next: T | undefined): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indexes.get(name) as Map<string, Set<T>>;
      if (old) removeFrom(index, fn(old), old);
      if (next) addTo(index, fn(next), next);
    }
  }
}

function addTo<T>(index: Map<string, Set<T>>, values: readonly string[], object: T): void {
  for (const v of values) {
    let objects = index.get(v);
    if (!objects) {
      objects = new Set();
      index.set(v, objects);
    }
    objects.add(object);
  }
}

function removeFrom<T>(index: Map<string, Set<T>>, values: readonly string[], object: T): void {
  for (const v of values) {
    const objects = index.get(v);
    if (!objects) continue;
    objects.delete(object);
    if (objects.size === 0) index.delete(v);
  }
}
