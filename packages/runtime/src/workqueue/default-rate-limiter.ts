import type { Clock } from '../clock.js';
import { ExponentialRateLimiter } from './exponential-rate-limiter.js';
import { MaxOfRateLimiter } from './max-of-rate-limiter.js';
import type { RateLimiter } from './rate-limiter.js';
import { TokenBucketRateLimiter } from './token-bucket-rate-limiter.js';

/**
 * The limiter controllers use unless told otherwise, as in client-go: per-key exponential backoff
 * from 5 ms to 1000 s, and an overall token bucket of 10 qps with a burst of 100, the longer
 * delay winning.
 */
export function defaultControllerRateLimiter<K = string>(clock?: Clock): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ExponentialRateLimiter<K>(5, 1_000_000),
    new TokenBucketRateLimiter<K>({ qps: 10, burst: 100, ...(clock ? { clock } : {}) }),
  );
}
