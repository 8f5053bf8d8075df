import { Fifo } from './fifo.js';

/**
 * How urgent an add is. `low` is for work nobody is waiting on, such as the events of an
 * informer's initial list: a fresh edit (`normal`) is handed out before it. See `KeyTable`.
 */
export type WorkPriority = 'normal' | 'low';

/** What `KeyTable.add` did with a key. */
export type AddOutcome = 'queued' | 'rerun' | 'merged';

/** Everything the table knows about one key; the entry exists while the queue holds the key in any form. */
export interface KeyEntry {
  /** Needs processing: queued, or processing and added again (then re-queued on `finish`). */
  dirty: boolean;
  /** Held by a worker. Never true while `queued` is set, so no second worker can get the key. */
  processing: boolean;
  /** Which list holds the key while it waits for a worker. */
  queued: WorkPriority | undefined;
  /** Priority of the pending work: the highest of the adds since the key became dirty. */
  priority: WorkPriority;
  /** When the key became dirty, for queue latency. */
  dirtySince: number;
  /** When the key entered its list, for aging. */
  queuedAt: number;
  /** When a worker took the key, for work duration and unfinished work. */
  processingSince: number;
  /** The last add request, for `explain`. */
  reason: string | undefined;
  lastAddAt: number;
}

/**
 * The de-duplicating core of the work queue, with client-go's invariants: a key is queued only
 * if it is dirty; a key is never queued while it is processing, so no two workers hold it; a key
 * made dirty while processing is queued again by `KeyTable.finish`. No clock, no timers, no
 * waiters: the queue passes `now` in and decides when to call what.
 *
 * **Priorities with aging.** Keys marked `low` wait while `normal` keys are queued. A low key that
 * has waited `agingMs` ages: while aged low keys and normal keys are both queued, hand-outs
 * alternate between them, so low work always progresses and normal work keeps at least half of the
 * hand-outs. A normal add of a dirty low key promotes it. Within one priority, keys are handed out
 * in the order they were queued.
 */
export class KeyTable<K> {
  /** Every key the queue holds in any form (a delayed add pending counts: the queue says when to drop). */
  private readonly entries = new Map<K, KeyEntry>();
  /**
   * Keys waiting for a worker, per priority, oldest first. A key may also sit in a list it has
   * left (promoted, or handed out and queued again): such stale places are skipped, as only the
   * list named by its entry's `queued` counts. `counts` holds the live numbers.
   */
  private readonly lists: Record<WorkPriority, Fifo<K>> = { normal: new Fifo<K>(), low: new Fifo<K>() };
  private readonly counts: Record<WorkPriority, number> = { normal: 0, low: 0 };
  /** The last hand-out was an aged low key: the next one goes to a normal key if any. */
  private lastWasAgedLow = false;
  /** Number of entries with `processing` set. */
  private processingCount = 0;

  constructor(private readonly agingMs: number) {
    if (!(agingMs >= 0)) throw new RangeError('lowPriorityAgingMs must be ≥ 0');
  }

  /** Keys waiting for a worker. */
  get queued(): number {
    return this.counts.normal + this.counts.low;
  }

  /** Keys held by workers. */
  get processing(): number {
    return this.processingCount;
  }

  /** The entry of `key`, if the table holds it. Read only: the table keeps its invariants. */
  get(key: K): Readonly<KeyEntry> | undefined {
    return this.entries.get(key);
  }

  /** The key's entry (created if new) with this add request recorded, for `explain`. */
  note(key: K, reason: string | undefined, now: number): KeyEntry {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = {
        dirty: false,
        processing: false,
        queued: undefined,
        priority: 'normal',
        dirtySince: now,
        queuedAt: now,
        processingSince: now,
        reason,
        lastAddAt: now,
      };
      this.entries.set(key, entry);
    } else {
      entry.reason = reason;
      entry.lastAddAt = now;
    }
    return entry;
  }

  /**
   * Marks `key` dirty. Returns `queued` when it went into a list, `rerun` when a worker holds it
   * (`finish` queues it), `merged` when it was pending already (a `normal` add may promote it).
   */
  add(key: K, reason: string | undefined, priority: WorkPriority, now: number): AddOutcome {
    const entry = this.note(key, reason, now);
    if (entry.dirty) {
      if (priority === 'normal' && entry.priority === 'low') this.promote(key, entry, now);
      return 'merged';
    }
    entry.dirty = true;
    entry.priority = priority;
    entry.dirtySince = now;
    if (entry.processing) return 'rerun';
    this.enqueue(key, entry, now);
    return 'queued';
  }

  /** Moves the next key to processing; the caller has checked that a key is queued. */
  take(now: number): { key: K; entry: Readonly<KeyEntry> } {
    const priority = this.pick(now);
    this.lastWasAgedLow = priority === 'low' && this.counts.normal > 0;
    const key = this.head(priority) as K;
    this.lists[priority].shift();
    this.counts[priority]--;
    const entry = this.entries.get(key) as KeyEntry;
    entry.queued = undefined;
    entry.dirty = false;
    entry.processing = true;
    entry.processingSince = now;
    this.processingCount++;
    return { key, entry };
  }

  /**
   * Ends the processing of `key`: queues it again when it was added meanwhile. Returns the entry,
   * or `undefined` when the key was not being processed.
   */
  finish(key: K, now: number): Readonly<KeyEntry> | undefined {
    const entry = this.entries.get(key);
    if (!entry?.processing) return undefined;
    entry.processing = false;
    this.processingCount--;
    if (entry.dirty) this.enqueue(key, entry, now);
    return entry;
  }

  /** Drops the entry of `key` if it is neither dirty nor processing; the caller knows no delay is pending. */
  releaseIfIdle(key: K): void {
    const entry = this.entries.get(key);
    if (entry && !entry.dirty && !entry.processing) this.entries.delete(key);
  }

  /** Keys held by workers, with their entries. */
  *processingEntries(): IterableIterator<[K, Readonly<KeyEntry>]> {
    for (const pair of this.entries) if (pair[1].processing) yield pair;
  }

  /** Queued keys in hand-out order within each priority: normal first, then low. */
  *queuedKeys(): IterableIterator<K> {
    for (const priority of ['normal', 'low'] as const) {
      for (const key of this.lists[priority]) if (this.entries.get(key)?.queued === priority) yield key;
    }
  }

  private enqueue(key: K, entry: KeyEntry, now: number): void {
    entry.queued = entry.priority;
    entry.queuedAt = now;
    this.lists[entry.priority].push(key);
    this.counts[entry.priority]++;
  }

  /** A normal add for a dirty low key: its pending work becomes normal, at the back of that list. */
  private promote(key: K, entry: KeyEntry, now: number): void {
    entry.priority = 'normal';
    if (entry.queued !== 'low') return; // processing: `finish` queues it as normal
    this.counts.low--;
    this.lists.normal.push(key);
    this.counts.normal++;
    entry.queued = 'normal';
    entry.queuedAt = now;
  }

  /** The live head of a list, dropping stale places. */
  private head(priority: WorkPriority): K | undefined {
    const list = this.lists[priority];
    for (;;) {
      const key = list.peek();
      if (key === undefined || this.entries.get(key)?.queued === priority) return key;
      list.shift();
    }
  }

  /** Which list the next hand-out takes from; see the class notes. */
  private pick(now: number): WorkPriority {
    if (this.counts.low === 0) return 'normal';
    if (this.counts.normal === 0) return 'low';
    const low = this.entries.get(this.head('low') as K) as KeyEntry;
    const aged = now - low.queuedAt >= this.agingMs;
    return aged && !this.lastWasAgedLow ? 'low' : 'normal';
  }
}
