/**
 * client-go's answer to "come back later": a 429, or a 5xx, that carries `Retry-After` was not
 * acted on (API Priority and Fairness rejected it, or the server is shutting down), so the same
 * request is sent again after that delay, whatever its method, a bounded number of times.
 */
/** How a transport retries answers that say when to come back. */
export interface RetryAfterPolicy {
  /** Retries per request (client-go: 10). 0 turns retries off. */
  maxRetries: number;
  /** The longest wait for one retry; a longer `Retry-After` is cut to it. */
  maxDelayMs: number;
}

/** client-go's count, and a wait no longer than a minute. */
export const defaultRetryAfterPolicy: RetryAfterPolicy = { maxRetries: 10, maxDelayMs: 60_000 };

/**
 * How long to wait before sending a request again after an answer with HTTP `status` and a
 * `Retry-After` of `retryAfterSeconds` (undefined: no such header), on retry number `attempt`
 * (0 for the first), or undefined when it is not to be retried.
 */
export function retryDelayMs(
  status: number,
  retryAfterSeconds: number | undefined,
  attempt: number,
  policy: RetryAfterPolicy,
): number | undefined {
  if (attempt >= policy.maxRetries || retryAfterSeconds === undefined) return undefined;
  if (status !== 429 && status < 500) return undefined;
  return Math.min(Math.max(0, retryAfterSeconds) * 1000, policy.maxDelayMs);
}
