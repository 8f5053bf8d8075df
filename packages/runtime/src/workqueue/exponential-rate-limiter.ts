import { backoffDelay } from '../backoff-delay.js';
import type { RateLimiter } from './rate-limiter.js';

/**
 * Per-key exponential backoff: the n-th failure in a row (counting from 0) waits
 * `baseMs × 2^n`, never more than `maxMs`.
 */
export class ExponentialRateLimiter<K = string> implements RateLimiter<K> {
  /** Failures per key; a key is absent once forgotten, so the map shrinks with the working set. */
  private readonly failures = new Map<K, number>();

  /**
   * @param baseMs the first delay (client-go's default: 5 ms).
   * @param maxMs the cap (client-go's default: 1000 s).
   */
  constructor(
    readonly baseMs = 5,
    readonly maxMs = 1_000_000,
  ) {
    if (!(baseMs >= 0) || !(maxMs >= 0)) throw new RangeError('baseMs and maxMs must be non-negative');
  }

  when(key: K): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return backoffDelay(n, { initialMs: this.baseMs, maxMs: this.maxMs });
  }

  forget(key: K): void {
    this.failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }
}
