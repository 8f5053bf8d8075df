import { setMaxListeners } from 'node:events';
import type { KubeObject } from '../api/types.js';
import type { HandlerRegistration, SharedInformer } from '../cache/shared-informer.js';
import { type Clock, realClock, settlesWithin } from '../clock.js';
import { createLogger, type Logger } from '../log/logger.js';
import { defaultControllerRateLimiter } from '../workqueue/default-rate-limiter.js';
import type { WorkQueueMetrics } from '../workqueue/metrics.js';
import { type WorkPriority, WorkQueue } from '../workqueue/queue.js';
import type { RateLimiter } from '../workqueue/rate-limiter.js';
import { type ControllerMetrics, noopControllerMetrics } from './controller-metrics.js';
import { applyOutcome, classify, resultLabel } from './outcome.js';
import type { Predicate } from './predicates.js';
import { LazyReconcileContext } from './reconcile-context.js';
import type { Reconciler } from './reconciler.js';
import { parseRequestKey, type Request, requestKey } from './request.js';

/** Tunables of a controller; the defaults are controller-runtime's. */
export interface ControllerOptions {
  /** Reconciles running at once (different keys only). Default 1. */
  maxConcurrentReconciles?: number;
  /** Default: max(per-item exponential 5 ms → 1000 s, token bucket 10 qps burst 100). */
  rateLimiter?: RateLimiter<string>;
  /** How long to wait for the sources' caches before failing the start. Default 2 min. */
  cacheSyncTimeoutMs?: number;
  /** Abort a reconcile's signal after this long (the reconcile is then counted as an error). Off by default. */
  reconcileTimeoutMs?: number;
  /** How long `stop` waits for in-flight reconciles. Default 30 s. */
  drainTimeoutMs?: number;
}

/** What the controller needs from its surroundings; the manager provides all of it. */
export interface ControllerDeps {
  logger?: Logger;
  /** Metrics of the controller named `name` and of its queue (the manager binds prom-client). */
  metricsFor?: (name: string) => { controller: ControllerMetrics; queue: WorkQueueMetrics };
  clock?: Clock;
}

/** A source of events: an informer, a mapping from objects to requests, and predicates. */
export interface Source<T extends KubeObject = KubeObject> {
  informer: SharedInformer<T>;
  /** The requests an object's event enqueues (its own key, its owner's, or a map function's). */
  toRequests(object: T): Request[];
  predicates?: Predicate<T>[];
  /** Recorded as the enqueue reason, e.g. `for ConfigMap` (shown by the debug endpoint). */
  description: string;
}

const NO_REQUESTS: readonly Request[] = [];

/** The reconcile timed out. */
export class ReconcileTimeoutError extends Error {
  override readonly name = 'ReconcileTimeoutError';
}

/**
 * Runs a {@link Reconciler} over a rate-limited work queue fed by informer events.
 * Workers (at most `maxConcurrentReconciles` reconciles in flight) take keys from the queue; the
 * queue guarantees that one key is never reconciled by two workers at once, and that a key changed
 * during its reconcile is reconciled again.
 */
export class Controller {
  private currentQueue: WorkQueue<string>;
  private readonly makeQueue: () => WorkQueue<string>;
  private readonly sources: Array<{ source: Source; registration?: HandlerRegistration }> = [];
  /** The sources' handlers are registered (by connect or start) and the run has not ended. */
  private connected = false;
  /** Reconciles in flight, at most `maxConcurrentReconciles`. */
  private busyWorkers = 0;
  /** Wakes the dispatcher when a worker becomes free (or the controller stops). */
  private wakeDispatcher: (() => void) | undefined;
  private readonly workerDone = () => {
    this.busyWorkers--;
    this.wake();
  };
  private readonly log: Logger;
  private readonly metrics: ControllerMetrics;
  private readonly clock: Clock;
  private readonly options: Required<Omit<ControllerOptions, 'rateLimiter' | 'reconcileTimeoutMs'>> &
    Pick<ControllerOptions, 'reconcileTimeoutMs'>;
  private stopping = new AbortController();
  private running: Promise<void> | undefined;

  constructor(
    readonly name: string,
    private readonly reconciler: Reconciler,
    options: ControllerOptions = {},
    deps: ControllerDeps = {},
  ) {
    this.clock = deps.clock ?? realClock;
    this.options = {
      maxConcurrentReconciles: options.maxConcurrentReconciles ?? 1,
      cacheSyncTimeoutMs: options.cacheSyncTimeoutMs ?? 120_000,
      drainTimeoutMs: options.drainTimeoutMs ?? 30_000,
      reconcileTimeoutMs: options.reconcileTimeoutMs,
    };
    const metrics = deps.metricsFor?.(name);
    const rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter(this.clock);
    // One limiter for the controller's life: failure counts survive a restart of the queue.
    this.makeQueue = () =>
      new WorkQueue<string>({
        name,
        clock: this.clock,
        rateLimiter,
        ...(metrics ? { metrics: metrics.queue } : {}),
      });
    this.currentQueue = this.makeQueue();
    this.log = (deps.logger ?? createLogger()).child({ controller: name });
    this.metrics = metrics?.controller ?? noopControllerMetrics;
    this.metrics.maxConcurrent(this.options.maxConcurrentReconciles);
  }

  /** The work queue of the current run (for introspection: metrics and the debug endpoint). */
  get queue(): WorkQueue<string> {
    return this.currentQueue;
  }

  /** Seconds of work in flight, for the `workqueue_unfinished_work_seconds` gauges. */
  unfinishedWork(): { totalSeconds: number; longestSeconds: number } {
    return this.currentQueue.unfinishedWork();
  }

  /** Adds an event source; its events flow into the queue once the controller connects or starts. */
  watch<T extends KubeObject>(source: Source<T>): this {
    if (this.running || this.connected) throw new Error(`controller ${this.name}: add sources before start`);
    this.sources.push({ source: source as unknown as Source });
    return this;
  }

  /** Enqueues a request by hand (e.g. from a timer or an external system). */
  enqueue(request: Request, reason = 'manual'): void {
    this.queue.add(requestKey(request), reason);
  }

  /**
   * Starts queueing the sources' events now, ahead of {@link Controller.start}, which runs the
   * workers (and connects the sources itself when this was not called). A manager without leader
   * election connects its controllers before its caches list, so the keys of the first list are
   * queued while it arrives rather than replayed afterwards. Idempotent until the next run ends.
   */
  connect(): void {
    if (this.connected) return;
    this.connected = true;
    // A controller may run again after a run ended (a new leadership term): a fresh queue; the
    // sources replay every cached object, so nothing is missed in between.
    if (this.currentQueue.shuttingDown()) this.currentQueue = this.makeQueue();
    for (const entry of this.sources)
      entry.registration = entry.source.informer.addEventHandler(this.handlerFor(entry.source));
  }

  /**
   * Connects the sources, waits for their caches to sync (failing after the cache sync timeout),
   * then runs workers until `signal` aborts or {@link Controller.stop} is called; resolves after
   * in-flight reconciles have drained (or the drain timeout passed).
   */
  start(signal?: AbortSignal): Promise<void> {
    if (this.running) throw new Error(`controller ${this.name} is running`);
    this.connect();
    this.stopping = new AbortController();
    const stopping = this.stopping;
    // Each reconcile that reads its signal listens here, beside the dispatcher and the sources'
    // sync waits: more than Node's default of 10 is no leak, and must not warn.
    setMaxListeners(this.options.maxConcurrentReconciles + this.sources.length + 8, stopping.signal);
    // An already-aborted signal never fires its abort event.
    if (signal?.aborted) stopping.abort();
    else signal?.addEventListener('abort', () => stopping.abort(), { once: true });
    this.running = this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Reconciles running now; once a drain timed out, the ones it stopped waiting for. */
  get inFlight(): number {
    return this.busyWorkers;
  }

  /** Stops taking new work and waits for in-flight reconciles (up to the drain timeout). */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }

  private async run(): Promise<void> {
    try {
      await this.waitForSources();
      this.log.info({ workers: this.options.maxConcurrentReconciles }, 'starting workers');
      await this.dispatch();
    } finally {
      for (const entry of this.sources) {
        entry.registration?.remove();
        entry.registration = undefined;
      }
      this.connected = false;
      await this.drain();
    }
  }

  /**
   * Waits for every source's cache. A kind the server does not serve (its CRD not installed yet)
   * is waited for without a deadline: the controller starts once the CRD appears.
   */
  private async waitForSources(): Promise<void> {
    const timeoutMs = this.options.cacheSyncTimeoutMs;
    const waitFor = async (informer: Source['informer']): Promise<void> => {
      for (;;) {
        try {
          return await informer.waitForSync(timeoutMs, this.stopping.signal);
        } catch (err) {
          if (this.stopping.signal.aborted || informer.kindServed()) throw err;
        }
      }
    };
    await Promise.all(this.sources.map(({ source }) => waitFor(source.informer))).catch((err: unknown) => {
      if (this.stopping.signal.aborted) return;
      throw new Error(`controller ${this.name}: caches did not sync within ${timeoutMs} ms`, { cause: err });
    });
  }

  /** Feeds workers: takes a key only when a worker is free, so keys wait in the queue, not here. */
  private async dispatch(): Promise<void> {
    const stopped = this.stopping.signal;
    const max = this.options.maxConcurrentReconciles;
    const onStop = () => this.wake();
    stopped.addEventListener('abort', onStop, { once: true });
    try {
      while (!stopped.aborted) {
        while (this.busyWorkers >= max && !stopped.aborted) {
          await new Promise<void>((resolve) => {
            this.wakeDispatcher = resolve;
          });
        }
        if (stopped.aborted) return;
        const queue = this.currentQueue;
        const item = await queue.get(stopped).catch(() => ({ shutdown: true as const }));
        if (item.shutdown) return;
        // A task per reconcile, not a task queue: nothing waits here but the keys in the queue.
        this.busyWorkers++;
        void this.process(item.key, queue).then(this.workerDone, (err: unknown) => {
          this.workerDone();
          throw err; // process() never throws; if it did, it stays as loud as it was
        });
      }
    } finally {
      stopped.removeEventListener('abort', onStop);
    }
  }

  private wake(): void {
    const wake = this.wakeDispatcher;
    this.wakeDispatcher = undefined;
    wake?.();
  }

  private async drain(): Promise<void> {
    const drained = this.queue.shutDownWithDrain();
    if (!(await settlesWithin(this.clock, drained, this.options.drainTimeoutMs))) {
      this.log.warn(
        { timeoutMs: this.options.drainTimeoutMs },
        'in-flight reconciles did not finish in time',
      );
      this.queue.shutDown();
    }
  }

  /** One reconcile of one key, from get to done. Never throws. */
  private async process(key: string, queue: WorkQueue<string>): Promise<void> {
    const request = parseRequestKey(key);
    // A signal of its own, as Go's per-reconcile context (listeners a reconciler leaves on it die
    // with it), a logger and an id: each made only if the reconciler reads it.
    const context = new LazyReconcileContext(request, this.log, this.stopping.signal);
    const abortable = context.abortable;
    const timeoutMs = this.options.reconcileTimeoutMs;
    const timer =
      timeoutMs === undefined
        ? undefined
        : this.clock.setTimeout(
            () => abortable.abort(new ReconcileTimeoutError(`reconcile exceeded ${timeoutMs} ms`)),
            timeoutMs,
          );
    const started = this.clock.now();
    this.metrics.activeWorkers(1);
    let result: Awaited<ReturnType<Reconciler['reconcile']>>;
    let error: unknown;
    let threw = false;
    try {
      result = await this.reconciler.reconcile(request, context);
    } catch (err) {
      threw = true;
      error = err;
    } finally {
      if (timer) this.clock.clearTimeout(timer);
      abortable.dispose();
      this.metrics.activeWorkers(-1);
    }
    const reason = abortable.reason;
    if (!threw && reason instanceof ReconcileTimeoutError) {
      threw = true; // finished, but too late: its writes may be stale, so retry
      error = reason;
    }
    const outcome = classify(result, error, threw);
    this.metrics.reconciled(resultLabel(outcome), (this.clock.now() - started) / 1000);
    if (outcome.kind === 'error') {
      this.metrics.error();
      if (!(error instanceof Error)) this.metrics.panic();
      context.log.error({ err: error }, 'reconcile failed; will retry with backoff');
    } else if (outcome.kind === 'terminal') {
      this.metrics.error();
      this.metrics.terminalError();
      context.log.error({ err: error }, 'reconcile failed with a terminal error; not retrying');
    }
    applyOutcome(queue, key, outcome);
    queue.done(key);
  }

  private handlerFor(source: Source) {
    const predicates = source.predicates ?? [];
    const enqueue = (priority: WorkPriority, object: KubeObject, old?: KubeObject) => {
      const requests = source.toRequests(object);
      const oldRequests = old === undefined ? NO_REQUESTS : source.toRequests(old);
      // Distinct keys only: a second add of a key a worker just took would run it twice.
      // The common case (one request each, usually the same key) without a set per event.
      if (requests.length === 1 && oldRequests.length <= 1) {
        const key = requestKey(requests[0] as Request);
        const oldKey = oldRequests.length === 1 ? requestKey(oldRequests[0] as Request) : key;
        if (oldKey !== key) this.queue.add(oldKey, source.description, priority);
        this.queue.add(key, source.description, priority);
        return;
      }
      const keys = new Set(oldRequests.map(requestKey));
      for (const r of requests) keys.add(requestKey(r));
      for (const key of keys) this.queue.add(key, source.description, priority);
    };
    return {
      onAdd: (object: KubeObject, info?: { initialList: boolean }) => {
        // What was there at start-up nobody is waiting on: it must not delay fresh edits.
        if (predicates.every((p) => p.create?.(object) ?? true))
          enqueue(info?.initialList ? 'low' : 'normal', object);
      },
      onUpdate: (old: KubeObject, object: KubeObject) => {
        if (!predicates.every((p) => p.update?.(old, object) ?? true)) return;
        // Both: an owner or map target may have changed, and the old one must learn it lost the object.
        // A periodic resync (old === object) is housekeeping, like the initial list.
        enqueue(old === object ? 'low' : 'normal', object, old);
      },
      onDelete: (object: KubeObject) => {
        if (predicates.every((p) => p.delete?.(object) ?? true)) enqueue('normal', object);
      },
    };
  }
}
