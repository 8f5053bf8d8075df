/**
 * The exponential growth every backoff in the house shares: the reflector's {@link Backoff}, the
 * work queue's per-key rate limiter, the agent's eviction retries.
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
