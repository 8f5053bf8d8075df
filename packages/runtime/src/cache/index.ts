/**
 * The cache: reflectors keep stores equal to the server, shared informers fan changes out to
 * handlers, and the informer cache serves the Client's reads.
 */
export { Backoff, type BackoffOptions } from './backoff.js';
export { compactForCache } from './compact.js';
export { deepFreeze } from './deep-freeze.js';
export {
  InformerCache,
  type InformerCacheOptions,
  type InformerRestriction,
} from './informer-cache.js';
export { type EventHandler, Listener } from './listener.js';
export {
  Reflector,
  type ReflectorErrorInfo,
  type ReflectorOptions,
  type StoreChange,
} from './reflector.js';
export {
  CacheSyncError,
  type HandlerRegistration,
  SharedInformer,
  type SharedInformerOptions,
} from './shared-informer.js';
export { type IndexFunction, type ReadableStore, Store, type StoreDiff, storeKey } from './store.js';
export {
  type StepResult,
  step,
  type WatcherContext,
  type WatcherEvent,
  type WatcherState,
  WatchStream,
} from './watcher.js';
