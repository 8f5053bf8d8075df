/**
 * The exponential growth every backoff in the house shares (the reflector's {@link Backoff}, the
 * work queue's per-key rate limiter, the agent's eviction retries, the coordinator's refused
 * writes), and the jitter that keeps many waiters from waking together.
 */

/** How a delay grows with consecutive failures. */
export interface BackoffCurve {
  /** The delay after the first failure (attempt 0). */
  initialMs: number;
  /** No delay exceeds this. */
  maxMs: number;
  /** Growth per failure; default 2 (doubling). */
  factor?: number;
}

/**
 * The delay after `attempt` consecutive failures (counting from 0): `initialMs × factor^attempt`,
 * never more than `maxMs`. Large attempts saturate at the cap instead of overflowing.
 */
export function backoffDelay(attempt: number, curve: BackoffCurve): number {
  if (!(curve.initialMs > 0)) return 0;
  const grown = curve.initialMs * (curve.factor ?? 2) ** Math.max(0, attempt);
  return Math.min(curve.maxMs, Number.isFinite(grown) ? grown : curve.maxMs);
}

/**
 * `ms` spread uniformly over ±`spread` of itself (default ±25%), rounded to a millisecond: many
 * objects rechecked on one period do not all wake in the same instant.
 * @param random a source of numbers in [0, 1); tests pass their own.
 */
export function jittered(ms: number, spread = 0.25, random: () => number = Math.random): number {
  return Math.round(ms * (1 - spread + 2 * spread * random()));
}
