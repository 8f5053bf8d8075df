import type { Clock, TimerHandle } from '../clock.js';
import { type DelayEntry, DelayHeap } from './delay-heap.js';

/**
 * Adds that are due later, on a clock: a {@link DelayHeap} and the one timer armed for its
 * earliest entry. When entries fall due, `onDue` is called for each, earliest first.
 */
export class DelayedAdds<K> {
  /** Pending adds by due time. Invariant: `timer` is armed for `heap.peek()` whenever it exists. */
  private readonly heap = new DelayHeap<K>();
  private timer: TimerHandle | undefined;
  private timerAt: number | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly onDue: (key: K, reason: string | undefined) => void,
  ) {}

  /** The number of keys with an add pending. */
  get size(): number {
    return this.heap.size;
  }

  /**
   * Schedules `key` at `readyAt`, merging with a pending add of it (the earlier time wins).
   * `backoff` marks a rate-limited retry, which {@link DelayedAdds.cancelBackoff} may drop.
   */
  schedule(key: K, readyAt: number, reason: string | undefined, backoff: boolean): void {
    this.heap.schedule(key, readyAt, reason, backoff);
    this.arm();
  }

  /** The pending add of `key`, if any. */
  get(key: K): Readonly<DelayEntry<K>> | undefined {
    return this.heap.get(key);
  }

  /** Keys with an add pending. */
  keys(): IterableIterator<K> {
    return this.heap.keys();
  }

  /**
   * Drops the pending add of `key` if only rate-limited retries asked for it; a delay asked for
   * through `addAfter` is kept. Returns whether it was dropped.
   */
  cancelBackoff(key: K): boolean {
    const entry = this.heap.get(key);
    if (entry === undefined || !entry.backoffOnly) return false;
    this.heap.remove(key);
    this.arm();
    return true;
  }

  /** Drops every pending add (at shutdown). */
  clear(): void {
    this.heap.clear();
    this.arm();
  }

  /** Re-establishes the invariant on `timer` after the heap changed. */
  private arm(): void {
    const next = this.heap.peek()?.readyAt;
    if (next === this.timerAt) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = next;
    if (next === undefined) return;
    this.timer = this.clock.setTimeout(() => this.fire(), next - this.clock.now());
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = undefined;
    const now = this.clock.now();
    // A real timer may fire a little early; anything not yet due waits for the next arm.
    for (let top = this.heap.peek(); top !== undefined && top.readyAt <= now; top = this.heap.peek()) {
      this.heap.pop();
      this.onDue(top.key, top.reason);
    }
    this.arm();
  }
}
