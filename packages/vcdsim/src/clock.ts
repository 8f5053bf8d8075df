/**
 * Time for the simulator. Task latency, VM boot delay and token expiry all read this clock, so a
 * test can run with a {@link VirtualClock} and step time explicitly, while the demo uses real time.
 */

/** A handle returned by {@link Clock.schedule}. */
export interface Timer {
  cancel(): void;
}

/** The simulator's notion of time. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `fn` once `ms` milliseconds have passed on this clock. */
  schedule(ms: number, fn: () => void): Timer;
}

/** Wall-clock time and `setTimeout`. */
export class RealClock implements Clock {
  now(): number {
    return Date.now();
  }
  schedule(ms: number, fn: () => void): Timer {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  }
}

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
}

/**
 * A clock that moves only when told to. Timers due at the same instant run in the order they were
 * scheduled; a timer scheduled by a running timer for "now" runs within the same `advance`.
 */
export class VirtualClock implements Clock {
  #now: number;
  #seq = 0;
  // Invariant: every pending timer is due at or after the time it was scheduled.
  #pending: Pending[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  schedule(ms: number, fn: () => void): Timer {
    const entry = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn };
    this.#pending.push(entry);
    return { cancel: () => (this.#pending = this.#pending.filter((p) => p !== entry)) };
  }

  /** How many timers are waiting. */
  get pendingCount(): number {
    return this.#pending.length;
  }

  /** Moves time forward by `ms`, running every timer that falls due (in time order). */
  advance(ms: number): void {
    const target = this.#now + Math.max(0, ms);
    for (;;) {
      const next = this.#nextDue(target);
      if (!next) break;
      this.#pending = this.#pending.filter((p) => p !== next);
      this.#now = next.at;
      next.fn();
    }
    this.#now = target;
  }

  /** Advances until no timer is pending (at most `limitMs`), returning the time that passed. */
  runAll(limitMs = 24 * 3600_000): number {
    const start = this.#now;
    while (this.#pending.length > 0 && this.#now - start < limitMs) {
      const next = this.#nextDue(Number.POSITIVE_INFINITY);
      if (!next) break;
      this.advance(next.at - this.#now);
    }
    return this.#now - start;
  }

  #nextDue(limit: number): Pending | undefined {
    let best: Pending | undefined;
    for (const p of this.#pending) {
      if (p.at > limit) continue;
      if (!best || p.at < best.at || (p.at === best.at && p.seq < best.seq)) best = p;
    }
    return best;
  }
}
