import { type Clock, realClock } from '../clock.js';
import type { RateLimiter } from './rate-limiter.js';

/** Options for {@link TokenBucketRateLimiter}. */
export interface TokenBucketOptions {
  /** Tokens added per second. */
  qps: number;
  /** Bucket size: how many retries may go at once after a quiet spell. */
  burst: number;
  /** The time source. Defaults to {@link realClock}. */
  clock?: Clock;
}

/**
 * An overall limit shared by all keys: the bucket starts full with `burst` tokens and refills at
 * `qps`. Every `when` takes a token, reserving one in the future when the bucket is empty, so
 * over any interval of `t` seconds at most `burst + qps × t` retries become due. Keeps no
 * per-key state: `forget` does nothing and `numRequeues` is always 0.
 */
export class TokenBucketRateLimiter<K = string> implements RateLimiter<K> {
  private readonly qps: number;
  private readonly burst: number;
  private readonly clock: Clock;
  /** Tokens at time `last`; negative when tokens are already reserved for future retries. */
  private tokens: number;
  private last: number;

  constructor(options: TokenBucketOptions) {
    if (!(options.qps > 0)) throw new RangeError('qps must be positive');
    if (!(options.burst >= 1)) throw new RangeError('burst must be at least 1');
    this.qps = options.qps;
    this.burst = options.burst;
    this.clock = options.clock ?? realClock;
    this.tokens = options.burst;
    this.last = this.clock.now();
  }

  when(_key: K): number {
    const now = this.clock.now();
    // A clock that steps back must not mint tokens.
    const elapsed = Math.max(0, now - this.last);
    this.last = Math.max(this.last, now);
    this.tokens = Math.min(this.burst, this.tokens + (elapsed * this.qps) / 1000);
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  forget(_key: K): void {}

  numRequeues(_key: K): number {
    return 0;
  }
}
