/**
 * The cache (`@capstan/runtime/cache`): reflectors keep stores equal to the server, shared
 * informers fan changes out to handlers, and the informer cache serves the Client's reads. The
 * watcher's state machine, the default transform and the freezing of cached objects stay inside.
 */
export { Backoff, type BackoffOptions } from './backoff.js';
export {
  InformerCache,
  type InformerCacheOptions,
  type InformerHealth,
  type InformerRestriction,
} from './informer-cache.js';
export type { KindCacheOptions } from './kind-options.js';
export type { EventHandler } from './listener.js';
export {
  Reflector,
  type ReflectorErrorInfo,
  type ReflectorOptions,
  type StoreChange,
} from './reflector.js';
export {
  type CacheLogger,
  CacheSyncError,
  type HandlerRegistration,
  SharedInformer,
  type SharedInformerOptions,
} from './shared-informer.js';
export { type IndexFunction, type ReadableStore, Store, type StoreDiff, storeKey } from './store.js';
