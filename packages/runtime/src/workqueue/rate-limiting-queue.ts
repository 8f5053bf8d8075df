import { defaultControllerRateLimiter } from './default-rate-limiter.js';
import { DelayingQueue } from './delaying-queue.js';
import type { WorkQueueOptions } from './queue.js';
import type { RateLimiter } from './rate-limiter.js';

/** Options for {@link RateLimitingQueue}. */
export interface RateLimitingQueueOptions<K> extends WorkQueueOptions {
  /** Decides retry delays. Defaults to {@link defaultControllerRateLimiter} on the queue's clock. */
  rateLimiter?: RateLimiter<K>;
}

/**
 * A {@link DelayingQueue} whose retries are paced by a {@link RateLimiter}: what controllers use.
 *
 * **Backoff that events cannot poison.** In client-go, an event arriving while a key waits out
 * its backoff runs the key early; if that run fails, the failure counts, so a key that keeps
 * receiving events (often caused by its own status writes) climbs to the maximum delay far faster
 * than exponentially (kubernetes#132805). Here the exponent advances at most once per backoff:
 * `addRateLimited` counts a failure only when the key's current backoff has expired and the run
 * that failed started after it expired. A failure of a run that started early, because a plain
 * `add` arrived during the backoff, does not consult the limiter; the key goes back to waiting
 * for the deadline it already had. Plain adds still run the key at once, so a user's fix is seen
 * without waiting out the backoff. The delays a key sees, measured in time, therefore stay those
 * of the limiter no matter how many events arrive.
 *
 * {@link RateLimitingQueue.forget} also drops a pending retry that only the rate limiter asked
 * for (client-go would run the key once more for nothing); delays requested with `addAfter` stay.
 */
export class RateLimitingQueue<K extends string = string> extends DelayingQueue<K> {
  private readonly rateLimiter: RateLimiter<K>;
  /**
   * When each key's current backoff ends (clock ms). Invariant: set only by a counted
   * `addRateLimited`; removed by `forget`, or by `done` once the deadline has passed, so it holds
   * only keys that are backing off or running early against a backoff.
   */
  private readonly backoffUntil = new Map<K, number>();
  /** Keys whose current run was handed out before their backoff ended; cleared by `done`. */
  private readonly earlyRuns = new Set<K>();

  constructor(options: RateLimitingQueueOptions<K> = {}) {
    super(options);
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<K>(this.clock);
  }

  /**
   * Adds `key` after the delay the rate limiter gives for one more failure, unless the key is
   * still in backoff (see the class notes): then it waits for the existing deadline and the
   * failure is not counted. Ignored after shutdown.
   *
   * @param reason free text kept for {@link WorkQueue.snapshot}.
   */
  addRateLimited(key: K, reason?: string): void {
    if (this.shuttingDown()) return;
    this.metrics.onRetry();
    const now = this.clock.now();
    const until = this.backoffUntil.get(key);
    if (until !== undefined && (until > now || this.earlyRuns.has(key))) {
      this.schedule(key, until - now, reason, true);
      return;
    }
    const delay = this.rateLimiter.when(key);
    this.backoffUntil.set(key, now + delay);
    this.schedule(key, delay, reason, true);
  }

  /**
   * Clears the failures of `key` (call it after a success) and drops a pending retry that only
   * `addRateLimited` asked for. The key's place in the queue, if any, is kept.
   */
  forget(key: K): void {
    this.rateLimiter.forget(key);
    this.backoffUntil.delete(key);
    this.earlyRuns.delete(key);
    this.cancelBackoff(key);
  }

  /** Failures of `key` counted by the rate limiter since it was last forgotten. */
  numRequeues(key: K): number {
    return this.rateLimiter.numRequeues(key);
  }

  protected override failures(key: K): number {
    return this.rateLimiter.numRequeues(key);
  }

  protected override afterHandOut(key: K, now: number): void {
    const until = this.backoffUntil.get(key);
    if (until !== undefined && until > now) this.earlyRuns.add(key);
  }

  protected override afterDone(key: K, now: number): void {
    this.earlyRuns.delete(key);
    const until = this.backoffUntil.get(key);
    if (until !== undefined && until <= now) this.backoffUntil.delete(key);
  }
}
