import { type Clock, realClock } from '../clock.js';
import { BackoffLedger } from './backoff-ledger.js';
import { defaultControllerRateLimiter } from './default-rate-limiter.js';
import { DelayedAdds } from './delayed-adds.js';
import { KeyTable, type WorkPriority } from './key-table.js';
import { noopWorkQueueMetrics, type WorkQueueMetrics } from './metrics.js';
import type { RateLimiter } from './rate-limiter.js';

export type { WorkPriority } from './key-table.js';

/** What {@link WorkQueue.get} resolves to: a key to work on, or the news that the queue is shut down. */
export type GetResult<K> = { key: K; shutdown: false } | { shutdown: true };

/** Options of a {@link WorkQueue}. */
export interface WorkQueueOptions<K = string> {
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
  /** Decides retry delays. Defaults to {@link defaultControllerRateLimiter} on the queue's clock. */
  rateLimiter?: RateLimiter<K>;
}

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

/**
 * The work queue controllers use: de-duplicating, delaying and rate-limited, with client-go's
 * semantics. A key added many times before a worker takes it is processed once; a key is never
 * held by two workers at once; a key added while it is being processed is processed again after
 * {@link WorkQueue.done}. Workers loop on `get` → work → `done`. After {@link WorkQueue.shutDown},
 * adds are ignored, `get` still hands out what is already queued and reports `shutdown` once the
 * queue is empty.
 *
 * It is composed of three parts, each owning one idea: a `KeyTable` (dirty, queued and
 * processing keys; **priorities with aging**), `DelayedAdds` (adds due later, on the clock)
 * and a `BackoffLedger` (**backoff that events cannot poison**). This class holds what they
 * share: the clock, metrics, waiting workers and shutdown, and keeps one rule between them: the
 * table drops a key only when no delayed add of it is pending.
 *
 * Plain adds still run a key at once while it backs off, so a user's fix is seen without waiting
 * out the backoff; {@link WorkQueue.forget} drops a pending retry that only the rate limiter asked
 * for (client-go would run the key once more for nothing), while delays asked for with `addAfter`
 * stay.
 */
export class WorkQueue<K extends string = string> {
  /** The queue's name, for metric labels and debug output. */
  readonly name: string;
  private readonly clock: Clock;
  private readonly metrics: WorkQueueMetrics;
  /**
   * Whether the queue reports metrics, and so times its work (queue latency, work duration,
   * unfinished work). Without, it reads the clock only where a decision needs the time: an add
   * (for `explain`), aging, backoff; client-go's queue without metrics reads it nowhere.
   */
  private readonly timed: boolean;
  private readonly keys: KeyTable<K>;
  private readonly delayed: DelayedAdds<K>;
  private readonly backoff: BackoffLedger<K>;
  /** Pending `get` calls. Invariant: non-empty only while nothing is queued and not shutting down. */
  private readonly waiters: Waiter<K>[] = [];
  /** Resolvers of `shutDownWithDrain`, released when processing empties (or on `shutDown`). */
  private drainWaiters: Array<() => void> = [];
  private shutdown = false;

  constructor(options: WorkQueueOptions<K> = {}) {
    this.name = options.name ?? 'workqueue';
    this.clock = options.clock ?? realClock;
    this.metrics = options.metrics ?? noopWorkQueueMetrics;
    this.timed = this.metrics !== noopWorkQueueMetrics;
    this.keys = new KeyTable<K>(options.lowPriorityAgingMs ?? 5_000);
    this.delayed = new DelayedAdds<K>(this.clock, (key, reason) => this.add(key, reason));
    this.backoff = new BackoffLedger<K>(options.rateLimiter ?? defaultControllerRateLimiter<K>(this.clock));
  }

  /**
   * Marks `key` as needing processing. A key already pending is not added twice; a key being
   * processed is re-queued when its worker calls `done`. Ignored after shutdown.
   *
   * @param reason free text kept for {@link WorkQueue.snapshot}, e.g. `"update event"`.
   * @param priority `low` for work nobody waits on (see `KeyTable`); default `normal`.
   */
  add(key: K, reason?: string, priority: WorkPriority = 'normal'): void {
    if (this.shutdown) return;
    const outcome = this.keys.add(key, reason, priority, this.clock.now());
    if (outcome === 'merged') return;
    this.metrics.onAdd();
    if (outcome === 'queued') this.queued();
  }

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
   * Adds `key` after the delay its `BackoffLedger` gives for one more failure; while the key
   * is still in backoff, it waits for the existing deadline and the failure is not counted.
   * Ignored after shutdown.
   *
   * @param reason free text kept for {@link WorkQueue.snapshot}.
   */
  addRateLimited(key: K, reason?: string): void {
    if (this.shutdown) return;
    this.metrics.onRetry();
    this.schedule(key, this.backoff.retryDelay(key, this.clock.now()), reason, true);
  }

  /**
   * Clears the failures of `key` (call it after a success) and drops a pending retry that only
   * `addRateLimited` asked for. The key's place in the queue, if any, is kept.
   */
  forget(key: K): void {
    this.backoff.forget(key);
    if (this.delayed.size > 0 && this.delayed.cancelBackoff(key)) this.keys.releaseIfIdle(key);
  }

  /** Failures of `key` counted by the rate limiter since it was last forgotten. */
  numRequeues(key: K): number {
    return this.backoff.failures(key);
  }

  /**
   * Waits for a key to work on. The caller owns the key until it calls {@link WorkQueue.done}.
   * Resolves `{ shutdown: true }` once the queue is shut down and empty.
   *
   * @param signal rejects the call with the signal's reason when aborted before a key is handed
   *   out (already aborted: even if keys are queued), so a stopping worker takes no key and
   *   leaves no waiter behind to swallow one.
   */
  get(signal?: AbortSignal): Promise<GetResult<K>> {
    // The signal first: a stopped worker must not take a key it would then reconcile.
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.keys.queued > 0) return Promise.resolve(this.handOut());
    if (this.shutdown) return Promise.resolve({ shutdown: true });
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
    const entry = this.keys.finish(key);
    if (entry === undefined) return;
    const dirty = entry.dirty;
    const now = this.timed || dirty || this.backoff.active ? this.clock.now() : 0;
    if (this.timed) this.metrics.onWorkDuration((now - entry.processingSince) / 1000);
    this.backoff.finished(key, now);
    if (dirty) {
      this.keys.requeue(entry, now);
      this.queued();
    } else if (this.delayed.size === 0 || this.delayed.get(key) === undefined) this.keys.release(entry);
    if (this.keys.processing === 0) this.releaseDrainWaiters();
  }

  /** The number of keys waiting for a worker (not counting keys being processed). */
  len(): number {
    return this.keys.queued;
  }

  /**
   * Stops accepting adds, drops pending delayed adds and wakes idle workers with `shutdown`. Work
   * in flight is not waited for; a pending {@link WorkQueue.shutDownWithDrain} stops waiting too.
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
    if (this.keys.processing === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** True once `shutDown` or `shutDownWithDrain` has been called. */
  shuttingDown(): boolean {
    return this.shutdown;
  }

  /**
   * How long the keys being processed have been held: polled by the unfinished-work gauges. A
   * queue without `metrics` does not time its work and reports zero.
   */
  unfinishedWork(): UnfinishedWork {
    if (!this.timed) return { totalSeconds: 0, longestSeconds: 0 };
    const now = this.clock.now();
    let total = 0;
    let longest = 0;
    for (const [, entry] of this.keys.processingEntries()) {
      const seconds = (now - entry.processingSince) / 1000;
      total += seconds;
      longest = Math.max(longest, seconds);
    }
    return { totalSeconds: total, longestSeconds: longest };
  }

  /** Where `key` stands, or `undefined` when the queue holds nothing for it. */
  explain(key: K): KeyExplanation<K> | undefined {
    const entry = this.keys.get(key);
    const readyAt = this.delayed.get(key)?.readyAt;
    const processing = entry?.processing === true;
    const dirty = entry?.dirty === true;
    if (!processing && !dirty && readyAt === undefined) return undefined;
    const explanation: KeyExplanation<K> = {
      key,
      state: processing ? 'processing' : dirty ? 'queued' : 'waiting',
      rerun: processing && dirty,
      failures: this.backoff.failures(key),
    };
    if (entry?.reason !== undefined) explanation.reason = entry.reason;
    if (entry !== undefined) explanation.lastAddedAt = entry.lastAddAt;
    if (readyAt !== undefined) explanation.readyAt = readyAt;
    if (dirty && entry?.priority === 'low') explanation.priority = 'low';
    return explanation;
  }

  /** {@link WorkQueue.explain} for every key the queue holds: processing, then queued, then waiting. */
  snapshot(): KeyExplanation<K>[] {
    const keys = new Set<K>();
    for (const [key] of this.keys.processingEntries()) keys.add(key);
    for (const key of this.keys.queuedKeys()) keys.add(key);
    for (const key of this.delayed.keys()) keys.add(key);
    const out: KeyExplanation<K>[] = [];
    for (const key of keys) {
      const e = this.explain(key);
      if (e !== undefined) out.push(e);
    }
    return out;
  }

  /** A delayed add: `backoff` marks a rate-limited retry, which `forget` may drop later. */
  private schedule(key: K, ms: number, reason: string | undefined, backoff: boolean): void {
    if (this.shutdown) return;
    if (!(ms > 0)) {
      this.add(key, reason);
      return;
    }
    const now = this.clock.now();
    this.keys.note(key, reason, now);
    this.delayed.schedule(key, now + ms, reason, backoff);
  }

  /** A key just went into the table's lists: report the depth, hand keys straight to idle workers. */
  private queued(): void {
    this.metrics.onDepth(this.keys.queued);
    // The invariant on `waiters` holds again afterwards.
    while (this.waiters.length > 0 && this.keys.queued > 0) {
      const waiter = this.waiters.shift() as Waiter<K>;
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve(this.handOut());
    }
  }

  /** Moves the next key to processing. The caller has checked that a key is queued. */
  private handOut(): GetResult<K> {
    const now = this.timed || this.keys.agingMatters || this.backoff.active ? this.clock.now() : 0;
    const entry = this.keys.take(now);
    const key = entry.key;
    if (this.timed) {
      this.metrics.onDepth(this.keys.queued);
      this.metrics.onQueueLatency((now - entry.dirtySince) / 1000);
    }
    this.backoff.handedOut(key, now);
    return { key, shutdown: false };
  }

  private beginShutdown(): void {
    this.shutdown = true;
    this.delayed.clear();
    // Nothing is queued whenever someone waits, so every waiter learns of the shutdown.
    for (const waiter of this.waiters.splice(0)) {
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve({ shutdown: true });
    }
  }

  private releaseDrainWaiters(): void {
    if (this.drainWaiters.length === 0) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
