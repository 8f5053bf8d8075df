/**
 * Per-kind cache options (controller-runtime's `ByObject`): what the cache keeps of one kind, for
 * every informer of it. A kind whose bodies are large gets a transform that keeps what its
 * controllers read; one of which only some objects matter gets a label or field selector; one
 * that lives in known namespaces gets those.
 */
import type { KubeObject, ResourceType } from '../api/types.js';

/** How the cache holds objects of one kind. */
export interface KindCacheOptions<T extends KubeObject = KubeObject> {
  type: ResourceType<T>;
  /** Applied to each object before it is cached, instead of the cache's transform. */
  transform?: (object: T) => T;
  /** Only objects matching this label selector are cached (unless a source names its own). */
  labelSelector?: string;
  /** Only objects matching this field selector are cached (unless a source names its own). */
  fieldSelector?: string;
  /** Only these namespaces are watched (one informer each), unless a source names its own. */
  namespaces?: readonly string[];
}

/** The kind options by kind (group and plural; metadata-only reads of a kind share them). */
export class KindOptionsTable {
  private readonly byKind = new Map<string, KindCacheOptions>();

  constructor(options: readonly KindCacheOptions[] = []) {
    for (const o of options) {
      const key = kindKey(o.type);
      if (this.byKind.has(key)) throw new Error(`cache options for ${o.type.plural} are given twice`);
      this.byKind.set(key, o as KindCacheOptions);
    }
  }

  /** The options of `type`'s kind, if any. */
  of(type: ResourceType): KindCacheOptions | undefined {
    return this.byKind.size === 0 ? undefined : this.byKind.get(kindKey(type));
  }
}

const kindKey = (type: ResourceType) => `${type.group}/${type.plural}`;
