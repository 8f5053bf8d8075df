import type { Clock, TimerHandle } from '../clock.js';

interface Timer {
  readonly id: number;
  readonly due: number;
  readonly fn: () => void;
}

/**
 * Lets every pending microtask (and promise continuation) run. Uses a macrotask turn, which Node
 * only takes once the microtask queue is empty, a few times over so chains of awaits settle.
 */
export async function flushMicrotasks(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * A virtual {@link Clock} for tests: time stands still until the test moves it. Timers fire in
 * order of due time (ties in order of creation), so runs are deterministic.
 *
 * Use {@link ManualClock.advance} for purely synchronous code and {@link ManualClock.advanceAsync}
 * when the code under test awaits between timers (reflectors, informers, queues).
 */
export class ManualClock implements Clock {
  private current: number;
  private nextId = 1;
  // Invariant: `timers` holds exactly the scheduled, not yet fired, not cleared timers.
  private readonly timers = new Map<number, Timer>();

  /** @param startMs the initial time, in milliseconds since the epoch (default: 2024-01-01). */
  constructor(startMs = Date.UTC(2024, 0, 1)) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.timers.set(id, { id, due: this.current + Math.max(0, ms), fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    const id = (handle as { id?: unknown }).id;
    if (typeof id === 'number') this.timers.delete(id);
  }

  /** Number of timers waiting to fire. */
  pendingTimers(): number {
    return this.timers.size;
  }

  /** Due time of the earliest pending timer, if any. */
  nextTimerAt(): number | undefined {
    return this.earliest()?.due;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way (including timers
   * those timers schedule), synchronously. Returns the number of timers fired.
   */
  advance(ms: number): number {
    const target = this.current + Math.max(0, ms);
    let fired = 0;
    for (let t = this.dueBefore(target); t; t = this.dueBefore(target)) {
      this.fire(t);
      fired++;
    }
    this.current = target;
    return fired;
  }

  /**
   * Like {@link advance}, but lets microtasks run before the first timer, between timers and at
   * the end, so code that awaits after a timer reaches its next timer before time moves on.
   */
  async advanceAsync(ms: number): Promise<number> {
    const target = this.current + Math.max(0, ms);
    let fired = 0;
    await flushMicrotasks();
    for (let t = this.dueBefore(target); t; t = this.dueBefore(target)) {
      this.fire(t);
      fired++;
      await flushMicrotasks();
    }
    this.current = target;
    await flushMicrotasks();
    return fired;
  }

  /**
   * Moves time forward in steps of `stepMs` (as {@link advanceAsync}) until `done()` holds, for
   * tests that wait on virtual time for what a real-time test would poll for.
   * @throws when `done()` still does not hold after `maxMs` of virtual time.
   */
  async advanceUntil(
    done: () => boolean,
    what = 'the condition',
    stepMs = 10,
    maxMs = 60_000,
  ): Promise<void> {
    for (let waited = 0; waited <= maxMs; waited += stepMs) {
      if (done()) return;
      await this.advanceAsync(stepMs);
    }
    throw new Error(`${what} did not hold within ${maxMs} ms of virtual time`);
  }

  /**
   * Moves time forward in steps of `stepMs` (as {@link advanceAsync}) until `work` settles, and
   * answers (or throws) what it did: for work that waits on virtual time, such as a controller's
   * stop while its reconciles sleep on this clock.
   */
  async advanceUntilSettled<T>(work: Promise<T>, stepMs = 100): Promise<T> {
    let settled = false;
    // Handlers that never reject: a derived promise rejecting before it is awaited would be an
    // unhandled rejection while time moves.
    const mark = () => {
      settled = true;
    };
    work.then(mark, mark);
    while (!settled) await this.advanceAsync(stepMs);
    return work;
  }

  /**
   * Fires timers (synchronously) until none is left, moving time to each one's due time.
   * @throws when more than `limit` timers fire (a timer that re-arms itself forever).
   */
  runAll(limit = 10_000): number {
    let fired = 0;
    for (let t = this.earliest(); t; t = this.earliest()) {
      if (++fired > limit) throw new Error(`ManualClock.runAll: more than ${limit} timers fired`);
      this.fire(t);
    }
    return fired;
  }

  /** Async {@link runAll}: flushes microtasks between timers. */
  async runAllAsync(limit = 10_000): Promise<number> {
    let fired = 0;
    await flushMicrotasks();
    for (let t = this.earliest(); t; t = this.earliest()) {
      if (++fired > limit) throw new Error(`ManualClock.runAllAsync: more than ${limit} timers fired`);
      this.fire(t);
      await flushMicrotasks();
    }
    return fired;
  }

  private fire(t: Timer): void {
    this.timers.delete(t.id);
    this.current = Math.max(this.current, t.due);
    t.fn();
  }

  private dueBefore(target: number): Timer | undefined {
    const t = this.earliest();
    return t && t.due <= target ? t : undefined;
  }

  // A linear scan: test suites hold a handful of timers, so a heap would not pay for itself.
  private earliest(): Timer | undefined {
    let best: Timer | undefined;
    for (const t of this.timers.values()) {
      if (!best || t.due < best.due || (t.due === best.due && t.id < best.id)) best = t;
    }
    return best;
  }
}
