/**
 * A small map whose entries expire, each after its own time to live, and which holds at most a
 * bounded number of them (the oldest written goes first), so that a flood of distinct keys (say,
 * random bearer tokens) cannot grow it without end.
 */
import type { Clock } from '../../clock.js';

/** Answers cached for a while, keyed by string. */
export class TtlCache<V> {
  /** Insertion order is write order: a rewrite moves the key to the end. */
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly maxEntries = 1024,
  ) {
    if (!(maxEntries >= 1)) throw new Error(`TtlCache: maxEntries must be at least 1, got ${maxEntries}`);
  }

  /** The value written for `key` less than its time to live ago, else undefined. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.clock.now() < entry.expiresAt) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Keeps `value` for `ttlMs` (nothing is kept for a time to live of 0 or less). */
  set(key: string, value: V, ttlMs: number): void {
    this.entries.delete(key);
    if (ttlMs <= 0) return;
    this.entries.set(key, { value, expiresAt: this.clock.now() + ttlMs });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  /** How many entries are held (expired ones included until read or pushed out). */
  get size(): number {
    return this.entries.size;
  }
}
