/**
 * Decides how long a key waits before its next retry. Limiters keep per-key state: `when`
 * records a failure as well as answering, so call it once per retry.
 */
export interface RateLimiter<K = string> {
  /** Records a failure of `key` and returns how many milliseconds it should wait. */
  when(key: K): number;
  /** Clears the failures of `key` (after a success, or when it is no longer retried). */
  forget(key: K): void;
  /** How many failures of `key` have been recorded since it was last forgotten. */
  numRequeues(key: K): number;
}
