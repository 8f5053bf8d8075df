import type { RateLimiter } from './rate-limiter.js';

/**
 * Retries a key quickly a few times, then slowly: the first `maxFastAttempts` failures wait
 * `fastMs`, every later one `slowMs`. Easier to follow in logs than exponential backoff when the
 * failure is expected to clear at a known pace.
 */
export class FastSlowRateLimiter<K = string> implements RateLimiter<K> {
  private readonly failures = new Map<K, number>();

  constructor(
    readonly fastMs: number,
    readonly slowMs: number,
    readonly maxFastAttempts: number,
  ) {
    if (!(fastMs >= 0) || !(slowMs >= 0) || !(maxFastAttempts >= 0)) {
      throw new RangeError('delays and attempts must be non-negative');
    }
  }

  when(key: K): number {
    const attempts = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, attempts);
    return attempts <= this.maxFastAttempts ? this.fastMs : this.slowMs;
  }

  forget(key: K): void {
    this.failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }
}
