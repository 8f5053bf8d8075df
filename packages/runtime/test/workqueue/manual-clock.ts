import type { Clock, TimerHandle } from '../../src/clock.js';

type Timer = { at: number; seq: number; fn: () => void; handle: TimerHandle };

/** A virtual clock for these tests: time moves only through `advance`, firing due timers in order. */
export class ManualClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start = 1_000_000) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = {};
    this.timers.push({ at: this.t + Math.max(0, ms), seq: this.seq++, fn, handle });
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((t) => t.handle !== handle);
  }

  /** Timers not yet fired or cleared. */
  pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing each due timer at its own time, earliest first. */
  advance(ms: number): void {
    const target = this.t + ms;
    for (;;) {
      let next: Timer | undefined;
      for (const t of this.timers) {
        if (
          t.at <= target &&
          (next === undefined || t.at < next.at || (t.at === next.at && t.seq < next.seq))
        ) {
          next = t;
        }
      }
      if (next === undefined) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = target;
  }
}
