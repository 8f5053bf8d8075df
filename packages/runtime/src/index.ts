/**
 * @packageDocumentation
 * `@capstan/runtime`: write Kubernetes controllers in TypeScript with controller-runtime's
 * semantics — a typed client, list/watch reflectors feeding a shared indexed cache, a rate-limited
 * work queue, controllers and a builder, and a manager (leader election, metrics, probes, events,
 * graceful shutdown). The in-memory test kit lives at `@capstan/runtime/testing`.
 */
import 'reflect-metadata';

export {
  Backoff,
  type BackoffOptions,
  CacheSyncError,
  compactForCache,
  deepFreeze,
  dropManagedFields,
  type EventHandler,
  type HandlerRegistration,
  type IndexFunction,
  InformerCache,
  type InformerCacheOptions,
  type InformerRestriction,
  type ReadableStore,
  Reflector,
  type ReflectorErrorInfo,
  type ReflectorOptions,
  SharedInformer,
  type SharedInformerOptions,
  Store,
  type StoreChange,
  type StoreDiff,
  storeKey,
} from './cache/index.js';
export * from './client/index.js';
export { type Clock, realClock, sleep, type TimerHandle } from './clock.js';
export * from './controller/index.js';
export * from './helpers/index.js';
export * from './manager/index.js';
export * from './webhook/index.js';
export * from './workqueue/index.js';
