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
 * A de-duplicating work queue with client-go semantics: a key added many times before a worker
 * takes it is processed once; a key is never held by two workers at once; a key added while it
 * is being processed is processed again after {@link WorkQueue.done}.
 *
 * Workers loop on `get` → work → `done`. After {@link WorkQueue.shutDown}, adds are ignored, `get`
 * still hands out what is already queued and reports `shutdown` once the queue is empty.
 */
export class WorkQueue<K extends string = string> {
  /** The queue's name, for metric labels and debug output. */
  readonly name: string;
  protected readonly clock: Clock;
  protected readonly metrics: WorkQueueMetrics;

  /**
   * Keys ready for a worker, oldest first. Invariant: every key here is also in `dirty`, appears
   * at most once, and is not in `processing`.
   */
  private readonly queue = new Fifo<K>();
  /**
   * Keys that need processing. Invariant: a dirty key is in `queue`, or in `processing` (then it
   * goes back into `queue` on `done`); this is what makes duplicate adds collapse.
   */
  private readonly dirty = new Set<K>();
  /**
   * Keys handed out by `get` and not yet `done`. Invariant: a key here is not in `queue`, so no
   * second worker can get it; `add` marks it dirty instead and `done` re-queues it.
   */
  private readonly processing = new Set<K>();

  /** Pending `get` calls. Invariant: non-empty only while `queue` is empty and not shutting down. */
  private readonly waiters: Waiter<K>[] = [];
  /** Resolvers of `shutDownWithDrain`, released when `processing` empties (or on `shutDown`). */
  private drainWaiters: Array<() => void> = [];
  private shutdown = false;

  /** When each dirty key became dirty, for queue latency. */
  private readonly dirtySince = new Map<K, number>();
  /** When each processing key was handed out, for work duration and unfinished work. */
  private readonly processingSince = new Map<K, number>();
  /** The last add request per key, for `snapshot`. Dropped once the key leaves the queue entirely. */
  private readonly lastAdd = new Map<K, { reason: string | undefined; at: number }>();

  constructor(options: WorkQueueOptions = {}) {
    this.name = options.name ?? 'workqueue';
    this.clock = options.clock ?? realClock;
    this.metrics = options.metrics ?? noopWorkQueueMetrics;
  }

  /**
   * Marks `key` as needing processing. A key already pending is not added twice; a key being
   * processed is re-queued when its worker calls `done`. Ignored after shutdown.
   *
   * @param reason free text kept for {@link WorkQueue.snapshot}, e.g. `"update event"`.
   */
  add(key: K, reason?: string): void {
    if (this.shutdown) return;
    this.noteAdd(key, reason);
    if (this.dirty.has(key)) return;
    this.dirty.add(key);
    this.dirtySince.set(key, this.clock.now());
    this.metrics.onAdd();
    // A worker holds it: `done` will queue it, so it can never run twice at once.
    if (this.processing.has(key)) return;
    this.enqueue(key);
  }

  /**
   * Waits for a key to work on. The caller owns the key until it calls {@link WorkQueue.done}.
   * Resolves `{ shutdown: true }` once the queue is shut down and empty.
   *
   * @param signal rejects the pending call with the signal's reason when aborted before a key
   *   is handed out, so a stopping worker does not leave a waiter behind to swallow a key.
   */
  get(signal?: AbortSignal): Promise<GetResult<K>> {
    if (this.queue.length > 0) return Promise.resolve(this.handOut());
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
    if (!this.processing.delete(key)) return;
    const now = this.clock.now();
    const since = this.processingSince.get(key);
    this.processingSince.delete(key);
    if (since !== undefined) this.metrics.onWorkDuration((now - since) / 1000);
    this.afterDone(key, now);
    if (this.dirty.has(key)) this.enqueue(key);
    else this.release(key);
    if (this.processing.size === 0) this.releaseDrainWaiters();
  }

  /** The number of keys waiting for a worker (not counting keys being processed). */
  len(): number {
    return this.queue.length;
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
    if (this.processing.size === 0) return Promise.resolve();
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
    for (const since of this.processingSince.values()) {
      const seconds = (now - since) / 1000;
      total += seconds;
      longest = Math.max(longest, seconds);
    }
    return { totalSeconds: total, longestSeconds: longest };
  }

  /** Where `key` stands, or `undefined` when the queue holds nothing for it. */
  explain(key: K): KeyExplanation<K> | undefined {
    const readyAt = this.readyAt(key);
    const processing = this.processing.has(key);
    const dirty = this.dirty.has(key);
    if (!processing && !dirty && readyAt === undefined) return undefined;
    const last = this.lastAdd.get(key);
    const explanation: KeyExplanation<K> = {
      key,
      state: processing ? 'processing' : dirty ? 'queued' : 'waiting',
      rerun: processing && dirty,
      failures: this.failures(key),
    };
    if (last?.reason !== undefined) explanation.reason = last.reason;
    if (last !== undefined) explanation.lastAddedAt = last.at;
    if (readyAt !== undefined) explanation.readyAt = readyAt;
    return explanation;
  }

  /** {@link WorkQueue.explain} for every key the queue holds: processing, then queued, then waiting. */
  snapshot(): KeyExplanation<K>[] {
    const keys = new Set<K>([...this.processing, ...this.queue, ...this.waitingKeys()]);
    const out: KeyExplanation<K>[] = [];
    for (const key of keys) {
      const e = this.explain(key);
      if (e !== undefined) out.push(e);
    }
    return out;
  }

  /** True while a worker holds `key`. */
  protected isProcessing(key: K): boolean {
    return this.processing.has(key);
  }

  /** Records the reason for an add request; subclasses call it for requests that do not add yet. */
  protected noteAdd(key: K, reason: string | undefined): void {
    this.lastAdd.set(key, { reason, at: this.clock.now() });
  }

  /** Forgets the bookkeeping of a key the queue no longer holds in any form. */
  protected release(key: K): void {
    if (!this.dirty.has(key) && !this.processing.has(key) && this.readyAt(key) === undefined) {
      this.lastAdd.delete(key);
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

  private enqueue(key: K): void {
    this.queue.push(key);
    this.metrics.onDepth(this.queue.length);
    // Hand keys straight to idle workers; the invariant on `waiters` holds again afterwards.
    while (this.waiters.length > 0 && this.queue.length > 0) {
      const waiter = this.waiters.shift() as Waiter<K>;
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.resolve(this.handOut());
    }
  }

  /** Moves the head of the queue to processing. The caller has checked the queue is not empty. */
  private handOut(): GetResult<K> {
    const key = this.queue.shift() as K;
    this.metrics.onDepth(this.queue.length);
    const now = this.clock.now();
    this.dirty.delete(key);
    this.processing.add(key);
    const since = this.dirtySince.get(key);
    this.dirtySince.delete(key);
    if (since !== undefined) this.metrics.onQueueLatency((now - since) / 1000);
    this.processingSince.set(key, now);
    this.afterHandOut(key, now);
    return { key, shutdown: false };
  }

  private beginShutdown(): void {
    this.shutdown = true;
    this.afterShutdown();
    // The queue is empty whenever someone waits, so every waiter learns of the shutdown.
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
