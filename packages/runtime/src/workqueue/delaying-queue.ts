import type { TimerHandle } from '../clock.js';
import { DelayHeap } from './delay-heap.js';
import { WorkQueue } from './queue.js';

/**
 * A {@link WorkQueue} that can also add a key later. One clock timer is armed for the earliest
 * pending entry; delayed adds of a key already waiting merge, the earliest time winning. Pending
 * delayed adds are dropped at shutdown.
 */
export class DelayingQueue<K extends string = string> extends WorkQueue<K> {
  /** Delayed adds by due time. Invariant: `timer` is armed for `waiting.peek()` whenever it exists. */
  private readonly waiting = new DelayHeap<K>();
  private timer: TimerHandle | undefined;
  private timerAt: number | undefined;

  /**
   * Adds `key` after `ms` milliseconds; `ms <= 0` adds it now. If the key is already waiting, the
   * earlier of the two times is kept. The key is not removed from the queue meanwhile: a plain
   * `add` still runs it at once. Ignored after shutdown.
   *
   * @param reason free text kept for {@link WorkQueue.snapshot}.
   */
  addAfter(key: K, ms: number, reason?: string): void {
    this.schedule(key, ms, reason, false);
  }

  /**
   * Schedules a delayed add. `backoff` marks a rate-limited retry, which
   * {@link DelayingQueue.cancelBackoff} may drop later.
   */
  protected schedule(key: K, ms: number, reason: string | undefined, backoff: boolean): void {
    if (this.shuttingDown()) return;
    if (!(ms > 0)) {
      this.add(key, reason);
      return;
    }
    this.noteAdd(key, reason);
    this.waiting.schedule(key, this.clock.now() + ms, reason, backoff);
    this.arm();
  }

  /**
   * Drops the pending delayed add of `key` if it only ever held rate-limited retries; a delay
   * that anyone asked for through `addAfter` is kept. Returns whether an entry was dropped.
   */
  protected cancelBackoff(key: K): boolean {
    const entry = this.waiting.get(key);
    if (entry === undefined || !entry.backoffOnly) return false;
    this.waiting.remove(key);
    this.arm();
    this.release(key);
    return true;
  }

  protected override readyAt(key: K): number | undefined {
    return this.waiting.get(key)?.readyAt;
  }

  protected override waitingKeys(): Iterable<K> {
    return this.waiting.keys();
  }

  protected override afterShutdown(): void {
    this.waiting.clear();
    this.arm();
  }

  /** Re-establishes the invariant on `timer` after the heap changed. */
  private arm(): void {
    const next = this.waiting.peek()?.readyAt;
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
    for (let top = this.waiting.peek(); top !== undefined && top.readyAt <= now; top = this.waiting.peek()) {
      this.waiting.pop();
      this.add(top.key, top.reason);
    }
    this.arm();
  }
}
