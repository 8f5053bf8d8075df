import type { RateLimiter } from './rate-limiter.js';

/**
 * Per-key backoff that events cannot poison: decides how long a failed key waits, consulting a
 * {@link RateLimiter} at most once per backoff.
 *
 * In client-go, an event arriving while a key waits out its backoff runs the key early; if that
 * run fails, the failure counts, so a key that keeps receiving events (often caused by its own
 * status writes) climbs to the maximum delay far faster than exponentially (kubernetes#132805).
 * Here a failure counts only when the key's current backoff has expired and the run that failed
 * started after it expired. A failure of a run that started early does not consult the limiter:
 * the key goes back to waiting for the deadline it already had. The delays a key sees, measured
 * in time, therefore stay those of the limiter no matter how many events arrive.
 */
export class BackoffLedger<K> {
  /**
   * When each key's current backoff ends (clock ms). Invariant: set only by a counted
   * {@link BackoffLedger.retryDelay}; removed by `forget`, or by `finished` once the deadline has
   * passed, so it holds only keys that are backing off or running early against a backoff.
   */
  private readonly backoffUntil = new Map<K, number>();
  /** Keys whose current run was handed out before their backoff ended; cleared by `finished`. */
  private readonly earlyRuns = new Set<K>();

  constructor(private readonly rateLimiter: RateLimiter<K>) {}

  /** Whether any key backs off: only then do `handedOut` and `finished` read the time they get. */
  get active(): boolean {
    return this.backoffUntil.size > 0;
  }

  /**
   * How long `key`, which just failed at `now`, waits before its retry: what remains of its
   * current backoff when it is still in one (or ran early against one), else the limiter's next
   * delay, which counts one more failure.
   */
  retryDelay(key: K, now: number): number {
    const until = this.backoffUntil.get(key);
    if (until !== undefined && (until > now || this.earlyRuns.has(key))) return until - now;
    const delay = this.rateLimiter.when(key);
    this.backoffUntil.set(key, now + delay);
    return delay;
  }

  /** A worker took `key` at `now`: a run that starts before its backoff ends is an early run. */
  handedOut(key: K, now: number): void {
    if (this.backoffUntil.size === 0) return;
    const until = this.backoffUntil.get(key);
    if (until !== undefined && until > now) this.earlyRuns.add(key);
  }

  /** A worker finished `key` at `now`: its early run is over, and an expired backoff is dropped. */
  finished(key: K, now: number): void {
    if (this.backoffUntil.size === 0) return;
    this.earlyRuns.delete(key);
    const until = this.backoffUntil.get(key);
    if (until !== undefined && until <= now) this.backoffUntil.delete(key);
  }

  /** Clears the failures and the backoff of `key` (after a success). */
  forget(key: K): void {
    this.rateLimiter.forget(key);
    if (this.backoffUntil.size === 0) return;
    this.backoffUntil.delete(key);
    this.earlyRuns.delete(key);
  }

  /** Failures of `key` counted since it was last forgotten. */
  failures(key: K): number {
    return this.rateLimiter.numRequeues(key);
  }
}
