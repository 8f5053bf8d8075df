import type { KubeObject, ResourceType } from '../api/types.js';
import { type Clock, realClock, type TimerHandle } from '../clock.js';
import type { ApiTransport } from '../transport/transport.js';
import { type EventHandler, Listener } from './listener.js';
import { Reflector, type ReflectorErrorInfo, type ReflectorOptions, type StoreChange } from './reflector.js';
import { type IndexFunction, type ReadableStore, Store } from './store.js';

/** Returned by {@link SharedInformer.addEventHandler}. */
export interface HandlerRegistration {
  /** Stops delivering to this handler. */
  remove(): void;
  /** True once this handler has processed every object of the initial list. */
  hasSynced(): boolean;
}

/** Options of {@link SharedInformer}. */
export interface SharedInformerOptions<T extends KubeObject>
  extends Omit<ReflectorOptions<T>, 'onChange' | 'onSynced'> {
  /**
   * Re-delivers every cached object as an update (`old === new`) this often, ±10% jitter.
   * Default 0: off. Resync repairs handlers that dropped work; it is not a substitute for watching.
   */
  resyncPeriodMs?: number;
  /** Called when a handler throws or rejects; delivery continues with the next change. */
  onHandlerError?: (error: unknown, change: StoreChange<T>) => void;
  /**
   * Where reflector and handler errors are reported (structured, e.g. the manager's logger)
   * unless `onError` / `onHandlerError` say otherwise. Default: `console.warn`.
   */
  logger?: CacheLogger;
}

/** The little of a logger the cache needs (a `Logger`'s `warn(fields, message)`). */
export interface CacheLogger {
  warn(fields: Record<string, unknown>, message: string): void;
  /** For news that is not a failure (a kind stops or starts being served). */
  info?(fields: Record<string, unknown>, message: string): void;
}

/** The cache's sync wait timed out or was aborted. */
export class CacheSyncError extends Error {
  override readonly name = 'CacheSyncError';
}

/**
 * One reflector and its store, shared by any number of event handlers.
 *
 * Handlers can be added at any time: one added late first receives an add for every cached
 * object, then live changes, so every handler sees a consistent history. Each handler has its own
 * ordered queue: async handlers are awaited one change at a time, so they never see events out of
 * order, and a slow handler holds back only itself.
 */
export class SharedInformer<T extends KubeObject = KubeObject> {
  private readonly reflector: Reflector<T>;
  private readonly listeners = new Set<Listener<T>>();
  private readonly clock: Clock;
  private readonly resyncPeriodMs: number;
  private readonly random: () => number;
  private readonly onHandlerError: (error: unknown, change: StoreChange<T>) => void;
  private resyncTimer: TimerHandle | undefined;
  private started = false;
  private stopped = false;

  constructor(
    transport: ApiTransport,
    readonly type: ResourceType<T>,
    options: SharedInformerOptions<T> = {},
  ) {
    this.clock = options.clock ?? realClock;
    this.resyncPeriodMs = options.resyncPeriodMs ?? 0;
    this.random = options.random ?? Math.random;
    const logger = options.logger;
    this.onHandlerError =
      options.onHandlerError ??
      (logger
        ? (err) => logger.warn({ resource: type.plural, err }, 'informer event handler failed')
        : (error) => console.warn(`informer ${type.plural}: event handler failed:`, error));
    const { logger: _logger, ...reflectorOptions } = options;
    this.reflector = new Reflector<T>(
      transport,
      type,
      {
        ...reflectorOptions,
        ...(logger && !options.onError
          ? {
              onError: (err: Error, info: ReflectorErrorInfo) =>
                logger.warn(
                  { resource: type.plural, err, phase: info.phase, retryInMs: info.retryInMs },
                  'reflector failed; retrying',
                ),
            }
          : {}),
        onServedChange: (served) => {
          options.onServedChange?.(served);
          logger?.info?.(
            { resource: type.plural },
            served
              ? 'kind served again: informer started'
              : 'kind not served (CRD not installed, or deleted): informer stopped until it is',
          );
        },
        onChange: (change) => {
          for (const l of this.listeners) l.push(change);
        },
        onSynced: () => {
          for (const l of this.listeners) l.markSyncPoint();
        },
      },
      new Store<T>(),
    );
  }

  /** The cached objects (frozen). */
  get store(): ReadableStore<T> {
    return this.reflector.store;
  }

  /** Adds a secondary index to the store (built over the objects already cached). */
  addIndex(name: string, fn: IndexFunction<T>): void {
    this.reflector.store.addIndex(name, fn);
  }

  /** Whether the store has an index of that name. */
  hasIndex(name: string): boolean {
    return this.reflector.store.hasIndex(name);
  }

  /** Registers a handler; if objects are cached already, it first gets an add for each. */
  addEventHandler(handler: EventHandler<T>): HandlerRegistration {
    const listener = new Listener<T>(handler, this.onHandlerError);
    // Replay and subscription happen in the same synchronous turn: no change can fall between them.
    for (const object of this.reflector.store.list())
      listener.push({ type: 'add', object, initialList: true });
    if (this.reflector.hasSynced()) listener.markSyncPoint();
    this.listeners.add(listener);
    return {
      remove: () => {
        listener.remove();
        this.listeners.delete(listener);
      },
      hasSynced: () => listener.hasSynced(),
    };
  }

  /** Starts the reflector (and the resync timer). Idempotent. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.reflector.start();
    this.scheduleResync();
  }

  /** Stops watching for good; handlers get nothing more. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.resyncTimer !== undefined) this.clock.clearTimeout(this.resyncTimer);
    await this.reflector.stop();
    for (const l of this.listeners) l.remove();
    this.listeners.clear();
  }

  /** True once the first complete list is in the store. */
  hasSynced(): boolean {
    return this.reflector.hasSynced();
  }

  /** False while the server answers 404 for the kind: its CRD is not installed (or was deleted). */
  kindServed(): boolean {
    return this.reflector.kindServed();
  }

  /** How long its lists and watches have failed without a success between (0 while healthy). */
  failingForMs(): number {
    return this.reflector.failingForMs();
  }

  lastSyncResourceVersion(): string {
    return this.reflector.lastSyncResourceVersion();
  }

  /**
   * Resolves once the store holds the first complete list (or, with `orUnserved`, once the kind
   * is found not served: a CRD not installed yet).
   * @throws {@link CacheSyncError} after `timeoutMs` (on the informer's clock) or when `signal` aborts.
   */
  async waitForSync(timeoutMs: number, signal?: AbortSignal, orUnserved = false): Promise<void> {
    if (this.reflector.hasSynced() || (orUnserved && !this.reflector.kindServed())) return;
    await new Promise<void>((resolve, reject) => {
      const fail = (message: string) => {
        cleanup();
        reject(new CacheSyncError(`informer for ${this.type.plural}: ${message}`));
      };
      const onAbort = () => fail('wait for cache sync aborted');
      const timer = this.clock.setTimeout(() => fail(`cache did not sync within ${timeoutMs} ms`), timeoutMs);
      const cleanup = () => {
        this.clock.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = orUnserved ? this.reflector.whenSyncedOrUnserved() : this.reflector.whenSynced();
      void done.then(() => {
        cleanup();
        resolve();
      });
    });
  }

  /** Resolves when every handler has processed every change delivered so far (for tests). */
  async drained(): Promise<void> {
    await Promise.all([...this.listeners].map((l) => l.idle()));
  }

  private scheduleResync(): void {
    if (this.resyncPeriodMs <= 0 || this.stopped) return;
    const jittered = this.resyncPeriodMs * (0.9 + 0.2 * this.random());
    this.resyncTimer = this.clock.setTimeout(() => {
      if (this.reflector.hasSynced()) {
        const objects = this.reflector.store.list();
        for (const l of this.listeners)
          for (const object of objects) l.push({ type: 'update', old: object, object });
      }
      this.scheduleResync();
    }, jittered);
  }
}
