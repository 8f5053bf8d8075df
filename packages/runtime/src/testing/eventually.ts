/** Options of {@link eventually}. */
export interface EventuallyOptions {
  /** How long to keep trying, in milliseconds (default 10 000). */
  timeoutMs?: number;
  /** The pause between two attempts, in milliseconds (default 50). */
  intervalMs?: number;
  /** What is awaited, for the timeout message, e.g. `'the Lease released'` (default `'condition'`). */
  what?: string;
  /**
   * Called once on timeout; its text is appended to the message on a line of its own (e.g. the last
   * observed state, or the logs of the processes involved).
   */
  details?: () => string;
}

/** A probe of {@link eventually}: a value when the awaited thing is there, `undefined` or `false` while not. */
export type EventuallyProbe<T> = () => T | undefined | false | PromiseLike<T | undefined | false>;

/**
 * Polls `probe` until it returns (or resolves to) a value other than `undefined` and `false`, and
 * resolves with that value: a boolean probe waits for a condition, one that returns an object or
 * `undefined` waits for, and hands back, the object.
 *
 * ```ts
 * await eventually(() => calls.length >= 2, { what: 'two reconciles' });
 * const pod = await eventually(
 *   async () => {
 *     const p = await client.get(Pod, key);
 *     return p.spec?.nodeName ? p : undefined;
 *   },
 *   { what: 'the pod bound', timeoutMs: 30_000 },
 * );
 * ```
 *
 * A probe that throws (or rejects) counts as "not yet" and is tried again. If no attempt succeeds
 * within `timeoutMs`, the returned promise rejects with an `Error` whose message names `what` and
 * the last error a probe threw (if any), which is also the error's `cause`. There is always at least
 * one attempt, and one more at the deadline.
 *
 * Uses the real `setTimeout` and `Date.now()` (not a `ManualClock`, nor vitest's fake timers),
 * and does not interrupt a probe that never settles: the test's own timeout covers that.
 */
export async function eventually<T>(probe: EventuallyProbe<T>, options: EventuallyOptions = {}): Promise<T> {
  const { timeoutMs = 10_000, intervalMs = 50, what = 'condition', details } = options;
  const deadline = Date.now() + timeoutMs;
  let failed = false;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value as T;
    } catch (err) {
      failed = true;
      lastError = err;
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      let message = `timed out after ${timeoutMs} ms waiting for ${what}`;
      if (failed)
        message += `; last error: ${lastError instanceof Error ? lastError.message : String(lastError)}`;
      if (details) message += `\n${details()}`;
      throw new Error(message, failed ? { cause: lastError } : undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, left)));
  }
}
