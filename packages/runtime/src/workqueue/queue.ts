import { type Clock, realClock } from '../clock.js';
import { Fifo } from './fifo.js';
import { noopWorkQueueMetrics, type WorkQueueMetrics } from './metrics.js';

/** What {@link WorkQueue.get} resolves to: a key to work on, or the news that the queue is shut down. */
export type GetResult<K> = { key: K; shutdown: false } | { shutdown: true };

/** Construction options shared by every queue. */
export interface WorkQueueOptions {
  /** Names the queue in metrics and debug output. Defaults to `"workqueue"`. */
  name?: string;
  /** The time source for latencies and delays. Defaults to {@link realClock}. */
  clock?: Clock;
  /** Where the queue reports its work. Defaults to {@link noopWorkQueueMetrics}. */
  metrics?: WorkQueueMetrics;
  /**
   * How long a low-priority key may wait before it ages: from then on it shares the workers one
   * for one with normal keys instead of waiting for the normal ones to run out. Default 5 s.
   */
  lowPriorityAgingMs?: number;
}

/**
 * How urgent an add is. `low` is for work nobody is waiting on, such as the events of an
 * informer's initial list: a fresh edit (`normal`) is handed out before it. See {@link WorkQueue}.
 */
export type WorkPriority = 'normal' | 'low';

/** Where a key stands, for a debug endpoint: see {@link WorkQueue.snapshot}. */
export interface KeyExplanation<K> {
  key: K;
  /**
   * `processing`: a worker holds it; `queued`: waiting for a worker; `waiting`: only a delayed add
   * is pending (see `readyAt`).
   */
  state: 'queued' | 'processing' | 'waiting';
  /** True when the key was added again while processing, so it runs again after `done`. */
  rerun: boolean;
  /** The reason given with the last add, addAfter or addRateLimited of this key, if any. */
  reason?: string;
  /** When (clock ms) that last request was made, or when a delayed add last landed in the queue. */
  lastAddedAt?: number;
  /** Failures counted by the rate limiter since the key was last forgotten. */
  failures: number;
  /** When a pending delayed add will put the key in the queue, if one is pending. */
  readyAt?: number;
  /** Present when the pending work is low priority. */
  priority?: 'low';
}

/** How long the work in flight has been running, for the unfinished-work gauges. */
export interface UnfinishedWork {
  /** Sum over keys in processing of the time since each was handed out. */
  totalSeconds: number;
  /** The longest time any key in processing has been held. */
  longestSeconds: number;
}

type Waiter<K> = {
  resolve: (result: GetResult<K>) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
};

/** Everything the queue knows about one key; the entry exists while the queue holds the key in any form. */
interface KeyEntry {
  /** Needs processing: queued, or processing and added again (then re-queued on `done`). */
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
  /** The last add request, for `explain`; `lastAddAt` undefined when none was noted. */
  reason: string | undefined;
  lastAddAt: number | undefined;
}

/**
 * A de-duplicating work queue with client-go semantics: a key added many times before a worker
 * takes it is processed once; a key is never held by two workers at once; a key added while it
 * is being processed is processed again after {@link WorkQueue.done}.
 *
 * Workers loop on `get` → work → `done`. After {@link WorkQueue.shutDown}, adds are ignored, `get`
 * still hands out what is already queued and reports `shutdown` once the queue is empty.
 *
 * **Priorities with aging** (beyond client-go). Keys added with priority `low` (controllers use it
 * for an informer's initial list) wait while `normal` keys are queued, so an edit made during a
 * 10,000-object start-up runs at once instead of behind the whole list. A low key that has waited
 * `lowPriorityAgingMs` ages: while aged low keys and normal keys are both queued, hand-outs
 * alternate between them, so low work always progresses (no starvation, unlike a strict priority
 * queue) and normal work keeps at least half of the hand-outs. A normal add of a queued low key
 * promotes it. Within one priority, keys are handed out in the order they were queued.
 */
export class WorkQueue<K extends string = string> {
  /** The queue's name, for metric labels and debug output. */
  readonly name: string;
  protected readonly clock: Clock;
  protected readonly metrics: WorkQueueMetrics;
  private readonly agingMs: number;

  /** Every key the queue holds in any form. */
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
  /** Number of keys held by workers. */
  private processingCount = 0;

  /** Pending `get` calls. Invariant: non-empty only while nothing is queued and not shutting down. */
  private readonly waiters: Waiter<K>[] = [];
  /** Resolvers of `shutDownWithDrain`, released when processing empties (or on `shutDown`). */
  private drainWaiters: Array<() => void> = [];
  private shutdown = false;

  constructor(options: WorkQueueOptions = {}) {
    this.name = options.name ?? 'workqueue';
    this.clock = options.clock ?? realClock;
    this.metrics = options.metrics ?? noopWorkQueueMetrics;
    this.agingMs = options.lowPriorityAgingMs ?? 5_000;
    if (!(this.agingMs >= 0)) throw new RangeError('lowPriorityAgingMs must be ≥ 0');
  }

  /**
   * Marks `key` as needing processing. A key already pending is not added twice; a key being
   * processed is re-queued when its worker calls `done`. Ignored after shutdown.
   *
   * @param reason free text kept for {@link WorkQueue.snapshot}, e.g. `"update event"`.
   * @param priority `low` for work nobody waits on (see the class notes); default `normal`.
   */
  add(key: K, reason?: string, priority: WorkPriority = 'normal'): void {
    if (this.shutdown) return;
    const now = this.clock.now();
    const entry = this.note(key, reason, now);
    if (entry.dirty) {
      if (priority === 'normal' && entry.priority === 'low') this.promote(key, entry, now);
      return;
    }
    entry.dirty = true;
    entry.priority = priority;
    entry.dirtySince = now;
    this.metrics.onAdd();
    // A worker holds it: `done` will queue it, so it can never run twice at once.
    if (entry.processing) return;
    this.enqueue(key, entry, now);
  }

  /**
   * Waits for a key to work on. The caller owns the key until it calls {@link WorkQueue.done}.
   * Resolves `{ shutdown: true }` once the queue is shut down and empty.
   *
   * @param signal rejects the pending call with the signal's reason when aborted before a key
   *   is handed out, so a stopping worker does not leave a waiter behind to swallow a key.
   */
  get(signal?: AbortSignal): Promise<GetResult<K>> {
    if (this.len() > 0) return Promise.resolve(this.handOut());
    if (this.shutdown) return Promise.resolve({ shutdown: true });
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const waiter: Waiter<K> = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(signal?.reason);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /**
   * Ends the processing of `key`. If the key was added while it was processed, it goes back into
   * the queue now. Calling `done` for a key that is not being processed does nothing.
   */
  done(key: K): void {
    const entry = this.entries.get(key);
    if (!entry?.processing) return;
    entry.processing = false;
    this.processingCount--;
    const now = this.clock.now();
    this.metrics.onWorkDuration((now - entry.processingSince) / 1000);
    this.afterDone(key, now);
    if (entry.dirty) this.enqueue(key, entry, now);
    else this.release(key);
    if (this.processingCount === 0) this.releaseDrainWaiters();
  }

  /** The number of keys waiting for a worker (not counting keys being processed). */
  len(): number {
    return this.counts.normal + this.counts.low;
  }

  /**
   * Stops accepting adds and wakes idle workers with `shutdown`. Work in flight is not waited
   * for; a pending {@link WorkQueue.shutDownWithDrain} stops waiting too.
   */
  shutDown(): void {
    this.beginShutdown();
    this.releaseDrainWaiters();
  }

  /**
   * Like {@link WorkQueue.shutDown}, then resolves once every key handed out has been marked
   * `done`. Keys still in the queue stay available to `get` but are not waited for.
   */
  shutDownWithDrain(): Promise<void> {
    this.beginShutdown();
    if (this.processingCount === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** True once `shutDown` or `shutDownWithDrain` has been called. */
  shuttingDown(): boolean {
    return this.shutdown;
  }

  /** How long the keys being processed have been held: polled by the unfinished-work gauges. */
  unfinishedWork(): UnfinishedWork {
    const now = this.clock.now();
    let total = 0;
    let longest = 0;
    for (const entry of this.entries.values()) {
      if (!entry.processing) continue;
      const seconds = (now - entry.processingSince) / 1000;
      total += seconds;
      longest = Math.max(longest, seconds);
    }
    return { totalSeconds: total, longestSeconds: longest };
  }

  /** Where `key` stands, or `undefined` when the queue holds nothing for it. */
  explain(key: K): KeyExplanation<K> | undefined {
    const entry = this.entries.get(key);
    const readyAt = this.readyAt(key);
    const processing = entry?.processing === true;
    const dirty = entry?.dirty === true;
    if (!processing && !dirty && readyAt === undefined) return undefined;
    const explanation: KeyExplanation<K> = {
      key,
      state: processing ? 'processing' : dirty ? 'queued' : 'waiting',
      rerun: processing && dirty,
      failures: this.failures(key),
    };
    if (entry?.reason !== undefined) explanation.reason = entry.reason;
    if (entry?.lastAddAt !== undefined) explanation.lastAddedAt = entry.lastAddAt;
    if (readyAt !== undefined) explanation.readyAt = readyAt;
    if (dirty && entry?.priority === 'low') explanation.priority = 'low';
    return explanation;
  }

  /** {@link WorkQueue.explain} for every key the queue holds: processing, then queued, then waiting. */
  snapshot(): KeyExplanation<K>[] {
    const keys = new Set<K>();
    for (const [key, entry] of this.entries) if (entry.processing) keys.add(key);
    for (const priority of ['normal', 'low'] as const) {
      for (const key of this.lists[priority]) if (this.entries.get(key)?.queued === priority) keys.add(key);
    }
    for (const key of this.waitingKeys()) keys.add(key);
    const out: KeyExplanation<K>[] = [];
    for (const key of keys) {
      const e = this.explain(key);
      if (e !== undefined) out.push(e);
    }
    return out;
  }

  /** Records the reason for an add request; subclasses call it for requests that do not add yet. */
  protected noteAdd(key: K, reason: string | undefined): void {
    this.note(key, reason, this.clock.now());
  }

  /** Forgets the bookkeeping of a key the queue no longer holds in any form. */
  protected release(key: K): void {
    const entry = this.entries.get(key);
    if (entry && !entry.dirty && !entry.processing && this.readyAt(key) === undefined) {
      this.entries.delete(key);
    }
  }

  /** Hook: a key was just handed to a worker at `now`. */
  protected afterHandOut(_key: K, _now: number): void {}

  /** Hook: a worker just finished `key` at `now` (before any re-queue). */
  protected afterDone(_key: K, _now: number): void {}

  /** Hook: shutdown began. */
  protected afterShutdown(): void {}

  /** Hook: when a delayed add of `key` is due, if one is pending. */
  protected readyAt(_key: K): number | undefined {
    return undefined;
  }

  /** Hook: keys with only a delayed add pending. */
  protected waitingKeys(): Iterable<K> {
    return [];
  }

  /** Hook: failures counted for `key`. */
  protected failures(_key: K): number {
    return 0;
  }

  /** The key's entry (created if new) with this add request recorded. */
  private note(key: K, reason: string | undefined, now: number): KeyEntry {
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

  private enqueue(key: K, entry: KeyEntry, now: number): void {
    entry.queued = entry.priority;
    entry.queuedAt = now;
    this.lists[entry.priority].push(key);
    this.counts[entry.priority]++;
    this.metrics.onDepth(this.len());
    // Hand keys straight to idle workers; the invariant on `waiters` holds again afterwards.
    while (this.waiters.length > 0 && this.len() > 0) {
      const waiter = this.waiters.shift() as Waiter<K>;
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve(this.handOut());
    }
  }

  /** A normal add for a dirty low key: its pending work becomes normal, at the back of that list. */
  private promote(key: K, entry: KeyEntry, now: number): void {
    entry.priority = 'normal';
    if (entry.queued !== 'low') return; // processing: `done` queues it as normal
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

  /** Moves the next key to processing. The caller has checked that a key is queued. */
  private handOut(): GetResult<K> {
    const now = this.clock.now();
    const priority = this.pick(now);
    this.lastWasAgedLow = priority === 'low' && this.counts.normal > 0;
    const key = this.head(priority) as K;
    this.lists[priority].shift();
    this.counts[priority]--;
    this.metrics.onDepth(this.len());
    const entry = this.entries.get(key) as KeyEntry;
    entry.queued = undefined;
    entry.dirty = false;
    entry.processing = true;
    entry.processingSince = now;
    this.processingCount++;
    this.metrics.onQueueLatency((now - entry.dirtySince) / 1000);
    this.afterHandOut(key, now);
    return { key, shutdown: false };
  }

  private beginShutdown(): void {
    this.shutdown = true;
    this.afterShutdown();
    // Nothing is queued whenever someone waits, so every waiter learns of the shutdown.
    for (const waiter of this.waiters.splice(0)) {
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve({ shutdown: true });
    }
  }

  private releaseDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
