import type { KubeObject } from '../client/types.js';
import { deepFreeze } from './deep-freeze.js';

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
export interface ReadableStore<T extends KubeObject = KubeObject> {
  get(key: string): T | undefined;
  list(): T[];
  keys(): string[];
  byIndex(indexName: string, value: string): T[];
  readonly size: number;
}

/**
 * The objects of one informer, keyed by `namespace/name`, with optional secondary indexes.
 *
 * Objects are deep-frozen on the way in and handed out as they are: no copies, one instance per
 * object, and a reader that tries to mutate one gets a TypeError (in strict-mode code) instead of
 * corrupting the cache.
 */
export class Store<T extends KubeObject = KubeObject> implements ReadableStore<T> {
  private readonly items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunction<T>>();
  // Invariant: for every index, value → keys holds exactly the keys whose object yields that value.
  // Empty key sets are removed so the maps shrink with the store.
  private readonly indexes = new Map<string, Map<string, Set<string>>>();

  get size(): number {
    return this.items.size;
  }

  /**
   * Adds a secondary index and builds it over the current objects.
   * @throws when an index of that name exists.
   */
  addIndex(name: string, fn: IndexFunction<T>): void {
    if (this.indexers.has(name)) throw new Error(`index "${name}" already exists`);
    this.indexers.set(name, fn);
    const index = new Map<string, Set<string>>();
    this.indexes.set(name, index);
    for (const [key, obj] of this.items) addTo(index, fn(obj), key);
  }

  /** Whether an index of that name exists. */
  hasIndex(name: string): boolean {
    return this.indexers.has(name);
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  /**
   * Objects whose index function yielded `value`.
   * @throws when no index of that name exists.
   */
  byIndex(indexName: string, value: string): T[] {
    const index = this.indexes.get(indexName);
    if (!index) throw new Error(`no index named "${indexName}"`);
    const keys = index.get(value);
    if (!keys) return [];
    return [...keys].map((k) => this.items.get(k) as T);
  }

  /** Inserts or replaces an object (freezing it); returns the previous object under its key. */
  upsert(object: T): T | undefined {
    const key = storeKey(object);
    const frozen = deepFreeze(object);
    const old = this.items.get(key);
    this.items.set(key, frozen);
    this.reindex(key, old, frozen);
    return old;
  }

  /** Removes the object under `key`; returns it, or undefined when absent. */
  delete(key: string): T | undefined {
    const old = this.items.get(key);
    if (old === undefined) return undefined;
    this.items.delete(key);
    this.reindex(key, old, undefined);
    return old;
  }

  /**
   * Replaces the whole content with `objects` and reports the difference. An object whose
   * resourceVersion did not change counts as unchanged (the stored instance is kept).
   */
  replace(objects: readonly T[]): StoreDiff<T> {
    const diff: StoreDiff<T> = { added: [], updated: [], deleted: [] };
    const seen = new Set<string>();
    for (const obj of objects) {
      const key = storeKey(obj);
      seen.add(key);
      const old = this.items.get(key);
      if (old === undefined) {
        this.upsert(obj);
        diff.added.push(this.items.get(key) as T);
      } else if (
        old.metadata.resourceVersion === undefined ||
        old.metadata.resourceVersion !== obj.metadata.resourceVersion
      ) {
        this.upsert(obj);
        diff.updated.push({ old, new: this.items.get(key) as T });
      }
    }
    for (const key of [...this.items.keys()]) {
      if (!seen.has(key)) diff.deleted.push(this.delete(key) as T);
    }
    return diff;
  }

  private reindex(key: string, old: T | undefined, next: T | undefined): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indexes.get(name) as Map<string, Set<string>>;
      if (old) removeFrom(index, fn(old), key);
      if (next) addTo(index, fn(next), key);
    }
  }
}

function addTo(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const v of values) {
    let keys = index.get(v);
    if (!keys) {
      keys = new Set();
      index.set(v, keys);
    }
    keys.add(key);
  }
}

function removeFrom(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const v of values) {
    const keys = index.get(v);
    if (!keys) continue;
    keys.delete(key);
    if (keys.size === 0) index.delete(v);
  }
}
