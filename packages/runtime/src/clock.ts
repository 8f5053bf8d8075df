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

/**
 * The longest delay Node's timers take (2^31 − 1 ms, about 24.8 days). A longer one fires at
 * once with a TimeoutOverflowWarning, so a huge flag or a timestamp far ahead would spin.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** A real timer, re-armed in steps of at most {@link MAX_TIMER_DELAY_MS} until it is due. */
class RealTimer {
  private timeout: NodeJS.Timeout | undefined;

  constructor(
    private readonly fn: () => void,
    ms: number,
  ) {
    // NaN or negative: now; Infinity: never (re-armed forever, harmlessly).
    this.arm(Number.isNaN(ms) ? 0 : Math.max(0, ms));
  }

  private arm(left: number): void {
    const step = Math.min(left, MAX_TIMER_DELAY_MS);
    this.timeout = setTimeout(() => (left > step ? this.arm(left - step) : this.fn()), step);
    this.timeout.unref();
  }

  clear(): void {
    clearTimeout(this.timeout);
  }
}

/**
 * The wall clock, backed by Node's timers. Timers are unref'd so they never keep a process alive;
 * any delay is safe (longer than Node's limit waits the whole time, in steps).
 */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    return new RealTimer(fn, ms);
  },
  clearTimeout(handle) {
    if (handle instanceof RealTimer) handle.clear();
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

/** Whether `work` settles within `ms` on `clock` (its timer is cleared either way). */
export async function settlesWithin(clock: Clock, work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: TimerHandle | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = clock.setTimeout(() => resolve('timeout'), ms);
  });
  const outcome = await Promise.race([work.then(() => 'settled' as const), timeout]);
  if (timer !== undefined) clock.clearTimeout(timer);
  return outcome === 'settled';
}
