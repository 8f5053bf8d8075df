/**
 * The work queue (`@capstan/runtime/workqueue`): a de-duplicating, delaying, rate-limited queue
 * with priorities, and the rate limiters that pace its retries.
 */
export { defaultControllerRateLimiter } from './default-rate-limiter.js';
export { ExponentialRateLimiter } from './exponential-rate-limiter.js';
export { FastSlowRateLimiter } from './fast-slow-rate-limiter.js';
export { MaxOfRateLimiter } from './max-of-rate-limiter.js';
export { noopWorkQueueMetrics, type WorkQueueMetrics } from './metrics.js';
export {
  type GetResult,
  type KeyExplanation,
  type UnfinishedWork,
  type WorkPriority,
  WorkQueue,
  type WorkQueueOptions,
} from './queue.js';
export type { RateLimiter } from './rate-limiter.js';
export { type TokenBucketOptions, TokenBucketRateLimiter } from './token-bucket-rate-limiter.js';
