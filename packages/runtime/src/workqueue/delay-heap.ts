/** A pending delayed add: the key goes into the queue at `readyAt`. */
export interface DelayEntry<K> {
  readonly key: K;
  /** Clock milliseconds at which the key is due. */
  readyAt: number;
  /** The reason to pass to `add` when the entry fires. */
  reason: string | undefined;
  /**
   * True while every request merged into this entry was a rate-limited retry, so forgetting the
   * key's failures may drop it without losing a delay someone else asked for.
   */
  backoffOnly: boolean;
  /** Position in the heap array; kept current so an entry can move or leave in O(log n). */
  index: number;
}

/**
 * A min-heap of delayed adds ordered by `readyAt`, with at most one entry per key so that an
 * earlier request for the same key can pull its entry forward in place.
 */
export class DelayHeap<K> {
  private readonly entries: DelayEntry<K>[] = [];
  private readonly byKey = new Map<K, DelayEntry<K>>();

  /** The number of pending entries. */
  get size(): number {
    return this.entries.length;
  }

  /** The entry due first, if any. */
  peek(): DelayEntry<K> | undefined {
    return this.entries[0];
  }

  /** The pending entry for `key`, if any. */
  get(key: K): DelayEntry<K> | undefined {
    return this.byKey.get(key);
  }

  /** Every key with a pending entry. */
  keys(): IterableIterator<K> {
    return this.byKey.keys();
  }

  /**
   * Schedules `key` at `readyAt`. When the key already has an entry, the earlier time wins (its
   * reason with it); `backoffOnly` stays true only if both requests were rate-limited retries.
   */
  schedule(key: K, readyAt: number, reason: string | undefined, backoff: boolean): void {
    const existing = this.byKey.get(key);
    if (existing === undefined) {
      const entry: DelayEntry<K> = { key, readyAt, reason, backoffOnly: backoff, index: this.entries.length };
      this.entries.push(entry);
      this.byKey.set(key, entry);
      this.up(entry.index);
      return;
    }
    existing.backoffOnly &&= backoff;
    if (readyAt < existing.readyAt) {
      existing.readyAt = readyAt;
      existing.reason = reason;
      this.up(existing.index);
    }
  }

  /** Removes and returns the entry due first. */
  pop(): DelayEntry<K> | undefined {
    const top = this.entries[0];
    if (top !== undefined) this.remove(top.key);
    return top;
  }

  /** Removes the entry for `key`; returns whether there was one. */
  remove(key: K): boolean {
    const entry = this.byKey.get(key);
    if (entry === undefined) return false;
    this.byKey.delete(key);
    const last = this.entries.pop() as DelayEntry<K>;
    if (last !== entry) {
      last.index = entry.index;
      this.entries[entry.index] = last;
      this.down(this.up(last.index));
    }
    return true;
  }

  /** Drops every entry. */
  clear(): void {
    this.entries.length = 0;
    this.byKey.clear();
  }

  /** Sifts the entry at `i` towards the root; returns its final index. */
  private up(i: number): number {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.at(parent).readyAt <= this.at(i).readyAt) break;
      this.swap(i, parent);
      i = parent;
    }
    return i;
  }

  private down(i: number): void {
    const n = this.entries.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < n && this.at(l).readyAt < this.at(min).readyAt) min = l;
      if (r < n && this.at(r).readyAt < this.at(min).readyAt) min = r;
      if (min === i) return;
      this.swap(i, min);
      i = min;
    }
  }

  private at(i: number): DelayEntry<K> {
    return this.entries[i] as DelayEntry<K>;
  }

  private swap(i: number, j: number): void {
    const a = this.at(i);
    const b = this.at(j);
    this.entries[i] = b;
    this.entries[j] = a;
    a.index = j;
    b.index = i;
  }
}
