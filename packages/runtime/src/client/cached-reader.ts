import type { KubeObject, ObjectKey, ResourceType } from '../api/types.js';

/**
 * What the {@link Client} needs from the informer cache to serve reads locally. The cache package
 * implements it; the client depends only on this interface.
 *
 * Objects handed out must be safe to keep: the cache freezes or copies them, the client passes them
 * on as they are.
 */
export interface CachedReader {
  /** Whether reads of this kind are served from the cache (an informer for it exists). */
  isCached(type: ResourceType): boolean;
  /**
   * Whether a list of exactly this selection is held whole by the cache though the kind is not
   * cached for every read (an informer restricted by exactly this label selector). Optional.
   */
  holdsList?(type: ResourceType, options: { namespace?: string; labelSelector?: string }): boolean;
  /**
   * Whether any informer holds this kind, whole or a selection of it: lists of it may be served
   * from the cache, so the client keeps its writes of it for read-your-own-writes. Optional.
   */
  holds?(type: ResourceType): boolean;
  /** The cached object, or `undefined` when the cache has none by that key. */
  get<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey): T | undefined;
  /** Cached objects, optionally restricted to one namespace and a label selector (server syntax). */
  list<T extends KubeObject>(
    type: ResourceType<T>,
    options?: { namespace?: string; labelSelector?: string },
  ): T[];
  /**
   * A copy of `object` (a write's answer, which stays the caller's) as the cache's objects are:
   * transformed and frozen. Optional: without it the client keeps a `structuredClone`.
   */
  adopt?<T extends KubeObject>(type: ResourceType<T>, object: T): T;
}
