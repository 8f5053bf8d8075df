/**
 * Time as the runtime sees it. Everything that waits or measures takes a Clock, so tests can run
 * on a virtual clock (see `@capstan/runtime/testing`) and property tests cover hours in milliseconds.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` after `ms` milliseconds; returns a handle for {@link Clock.clearTimeout}. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer; a no-op for timers that have fired or were cleared. */
  clearTimeout(handle: TimerHandle): void;
}

/** An opaque timer handle. */
export type TimerHandle = { readonly __timer: unique symbol } | object;

/** The wall clock, backed by Node's timers. Timers are unref'd so they never keep a process alive. */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref();
    return t;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

/** Resolves after `ms` on `clock`, or rejects with the signal's reason when aborted first. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal?.reason);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
