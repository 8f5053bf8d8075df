import type { RateLimiter } from './rate-limiter.js';

/**
 * Combines limiters by taking the longest delay any of them asks for. Every limiter is consulted
 * on each `when`, so all of them record the failure.
 */
export class MaxOfRateLimiter<K = string> implements RateLimiter<K> {
  private readonly limiters: readonly RateLimiter<K>[];

  constructor(...limiters: RateLimiter<K>[]) {
    if (limiters.length === 0) throw new RangeError('MaxOfRateLimiter needs at least one limiter');
    this.limiters = limiters;
  }

  when(key: K): number {
    let max = 0;
    for (const limiter of this.limiters) max = Math.max(max, limiter.when(key));
    return max;
  }

  forget(key: K): void {
    for (const limiter of this.limiters) limiter.forget(key);
  }

  numRequeues(key: K): number {
    let max = 0;
    for (const limiter of this.limiters) max = Math.max(max, limiter.numRequeues(key));
    return max;
  }
}
