import { Fifo } from './fifo.js';

/**
 * How urgent an add is. `low` is for work nobody is waiting on, such as the events of an
 * informer's initial list: a fresh edit (`normal`) is handed out before it. See `KeyTable`.
 */
export type WorkPriority = 'normal' | 'low';

/**
 * Releases in a sweep period, at least; more when the table holds more keys in use, so a sweep (a
 * pass over the table) costs O(1) a release. A key that comes back within a period stays parked.
 */
const MIN_SWEEP_PERIOD = 16_384;

/** What `KeyTable.add` did with a key. */
export type AddOutcome = 'queued' | 'rerun' | 'merged';

/** Everything the table knows about one key; the entry exists while the queue holds the key in any form. */
export interface KeyEntry<K = unknown> {
  /** The key this entry is for. */
  key: K;
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
  /** While `processing`, the entry's index in the table's list of entries in work; stale otherwise. */
  workSlot: number;
  /** The last add request, for `explain`. */
  reason: string | undefined;
  lastAddAt: number;
  /**
   * The sweep period in which the key was released, while it is parked (idle, kept for its next
   * add); `undefined` while the queue holds the key.
   */
  parkedIn: number | undefined;
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
  /**
   * Every key the queue holds in any form (a delayed add pending counts: the queue says when to
   * drop), and parked ones: released keys stay until a sweep finds them parked for a whole period,
   * so a key that comes back (the usual case: the next event of a live object) costs no map insert
   * and delete, the churn that was a third of a busy queue's time. Parked entries are at most those
   * released in the last two periods (≤ 2 × 16,384 beside the keys in use).
   */
  private readonly entries = new Map<K, KeyEntry<K>>();
  private parkedCount = 0;
  /** The current sweep period, releases in it, and its length in releases. */
  private period = 0;
  private releases = 0;
  private periodLength = MIN_SWEEP_PERIOD;
  /**
   * Entries of keys waiting for a worker, per priority, oldest first (entries, not keys: a
   * hand-out needs no lookup). An entry may also sit in a list it has left (promoted, handed out
   * and queued again, or released): such stale places are skipped, as only the list named by its
   * `queued` counts. `counts` holds the live numbers.
   */
  private readonly lists: Record<WorkPriority, Fifo<KeyEntry<K>>> = {
    normal: new Fifo<KeyEntry<K>>(),
    low: new Fifo<KeyEntry<K>>(),
  };
  private readonly counts: Record<WorkPriority, number> = { normal: 0, low: 0 };
  /** The last hand-out was an aged low key: the next one goes to a normal key if any. */
  private lastWasAgedLow = false;
  /**
   * Exactly the entries with `processing` set, each at its `workSlot`, so reading the keys in work
   * (metrics scrapes, snapshots) costs what is in work, not a pass over the parked entries too. An
   * array with slots, not a Set: a Set's add and delete on each take and finish halved the table's
   * add/take/finish rate.
   */
  private readonly inWork: KeyEntry<K>[] = [];

  constructor(private readonly agingMs: number) {
    if (!(agingMs >= 0)) throw new RangeError('lowPriorityAgingMs must be ≥ 0');
  }

  /** Keys waiting for a worker. */
  get queued(): number {
    return this.counts.normal + this.counts.low;
  }

  /** Entries held, parked ones included (what the table costs in memory). */
  get held(): number {
    return this.entries.size;
  }

  /** Keys held by workers. */
  get processing(): number {
    return this.inWork.length;
  }

  /** The entry of `key`, if the table holds it. Read only: the table keeps its invariants. */
  get(key: K): Readonly<KeyEntry<K>> | undefined {
    const entry = this.entries.get(key);
    return entry?.parkedIn === undefined ? entry : undefined;
  }

  /** The key's entry (created if new) with this add request recorded, for `explain`. */
  note(key: K, reason: string | undefined, now: number): KeyEntry<K> {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = {
        key,
        dirty: false,
        processing: false,
        queued: undefined,
        priority: 'normal',
        dirtySince: now,
        queuedAt: now,
        processingSince: now,
        workSlot: -1,
        reason,
        lastAddAt: now,
        parkedIn: undefined,
      };
      this.entries.set(key, entry);
      return entry;
    }
    if (entry.parkedIn !== undefined) {
      entry.parkedIn = undefined;
      this.parkedCount--;
    }
    entry.reason = reason;
    entry.lastAddAt = now;
    return entry;
  }

  /**
   * Marks `key` dirty. Returns `queued` when it went into a list, `rerun` when a worker holds it
   * (`finish` queues it), `merged` when it was pending already (a `normal` add may promote it).
   */
  add(key: K, reason: string | undefined, priority: WorkPriority, now: number): AddOutcome {
    const entry = this.note(key, reason, now);
    if (entry.dirty) {
      if (priority === 'normal' && entry.priority === 'low') this.promote(entry, now);
      return 'merged';
    }
    entry.dirty = true;
    entry.priority = priority;
    entry.dirtySince = now;
    if (entry.processing) return 'rerun';
    this.enqueue(entry, now);
    return 'queued';
  }

  /** Whether keys of low priority are queued: only then does {@link KeyTable.take} read `now` to hand out. */
  get agingMatters(): boolean {
    return this.counts.low > 0;
  }

  /**
   * Moves the next key to processing and answers its entry; the caller has checked that a key is
   * queued. `now` is the hand-out time (see {@link KeyTable.agingMatters}).
   */
  take(now: number): Readonly<KeyEntry<K>> {
    const priority = this.pick(now);
    this.lastWasAgedLow = priority === 'low' && this.counts.normal > 0;
    const entry = this.head(priority) as KeyEntry<K>;
    this.lists[priority].shift();
    this.counts[priority]--;
    entry.queued = undefined;
    entry.dirty = false;
    entry.processing = true;
    entry.processingSince = now;
    entry.workSlot = this.inWork.push(entry) - 1;
    return entry;
  }

  /**
   * Ends the processing of `key`. Returns the entry, or `undefined` when the key was not being
   * processed; when it was added meanwhile (`dirty`), the caller queues it with {@link KeyTable.requeue}.
   */
  finish(key: K): KeyEntry<K> | undefined {
    const entry = this.entries.get(key);
    if (!entry?.processing) return undefined;
    entry.processing = false;
    // Swap-remove: the last entry in work takes the slot this one leaves.
    const last = this.inWork.pop() as KeyEntry<K>;
    if (last !== entry) {
      this.inWork[entry.workSlot] = last;
      last.workSlot = entry.workSlot;
    }
    return entry;
  }

  /**
   * Queues an entry that was added while processing, once {@link KeyTable.finish} ended it. The
   * caller checks `dirty`; nothing else needs checking: `finish` cleared `processing`, and a key in
   * work is in no list.
   */
  requeue(entry: KeyEntry<K>, now: number): void {
    this.enqueue(entry, now);
  }

  /** Drops the entry of `key` if it is neither dirty nor processing; the caller knows no delay is pending. */
  releaseIfIdle(key: K): void {
    const entry = this.entries.get(key);
    if (entry !== undefined) this.release(entry);
  }

  /**
   * {@link KeyTable.releaseIfIdle} for the key's entry at hand (the one `finish` answered): parks
   * it, and sweeps once a period's releases are done.
   */
  release(entry: KeyEntry<K>): void {
    if (entry.dirty || entry.processing || entry.parkedIn !== undefined) return;
    entry.parkedIn = this.period;
    entry.reason = undefined; // hold no caller's string
    this.parkedCount++;
    if (++this.releases >= this.periodLength) this.sweep();
  }

  /** Drops the entries parked since before the period now ending, and starts the next period. */
  private sweep(): void {
    for (const [key, entry] of this.entries) {
      if (entry.parkedIn !== undefined && entry.parkedIn < this.period) {
        this.entries.delete(key);
        this.parkedCount--;
      }
    }
    this.period++;
    this.releases = 0;
    this.periodLength = Math.max(MIN_SWEEP_PERIOD, this.entries.size - this.parkedCount);
  }

  /** Keys held by workers, with their entries. */
  *processingEntries(): IterableIterator<[K, Readonly<KeyEntry<K>>]> {
    for (const entry of this.inWork) yield [entry.key, entry];
  }

  /** Queued keys in hand-out order within each priority: normal first, then low. */
  *queuedKeys(): IterableIterator<K> {
    for (const priority of ['normal', 'low'] as const) {
      for (const entry of this.lists[priority]) if (entry.queued === priority) yield entry.key;
    }
  }

  private enqueue(entry: KeyEntry<K>, now: number): void {
    entry.queued = entry.priority;
    entry.queuedAt = now;
    this.lists[entry.priority].push(entry);
    this.counts[entry.priority]++;
  }

  /** A normal add for a dirty low key: its pending work becomes normal, at the back of that list. */
  private promote(entry: KeyEntry<K>, now: number): void {
    entry.priority = 'normal';
    if (entry.queued !== 'low') return; // processing: `finish` queues it as normal
    this.counts.low--;
    this.lists.normal.push(entry);
    this.counts.normal++;
    entry.queued = 'normal';
    entry.queuedAt = now;
  }

  /** The entry of the live head of a list, dropping stale places. */
  private head(priority: WorkPriority): KeyEntry<K> | undefined {
    const list = this.lists[priority];
    for (;;) {
      const entry = list.peek();
      if (entry === undefined || entry.queued === priority) return entry;
      list.shift();
    }
  }

  /** Which list the next hand-out takes from; see the class notes. */
  private pick(now: number): WorkPriority {
    if (this.counts.low === 0) return 'normal';
    if (this.counts.normal === 0) return 'low';
    const low = this.head('low') as KeyEntry<K>;
    const aged = now - low.queuedAt >= this.agingMs;
    return aged && !this.lastWasAgedLow ? 'low' : 'normal';
  }
}
