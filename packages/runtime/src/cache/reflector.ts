import type { KubeObject, ResourceType } from '../api/types.js';
import { type Clock, realClock, sleep } from '../clock.js';
import type { ApiTransport } from '../transport/transport.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import { compactForCache } from './compact.js';
import { deepFreeze } from './deep-freeze.js';
import { dropManagedFields } from './drop-managed-fields.js';
import { internCommonStrings } from './intern.js';
import { ReflectorHealth } from './reflector-health.js';
import { listedChanges, Store, type StoreChange } from './store.js';
import {
  type StepResult,
  step,
  type WatcherContext,
  type WatcherEvent,
  type WatcherState,
} from './watcher.js';

export type { StoreChange } from './store.js';

/** A first list being stored as it arrives: the machine's array of it, and how many are stored. */
interface ArrivingList<T extends KubeObject> {
  readonly items: readonly T[];
  stored: number;
}

/** Context of a reported error. */
export interface ReflectorErrorInfo {
  /** The state the machine was in when the error happened. */
  readonly phase: WatcherState<KubeObject>['phase'];
  /** How long the reflector waits before trying again. */
  readonly retryInMs: number;
}

/** Options of {@link Reflector}. */
export interface ReflectorOptions<T extends KubeObject> {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  clock?: Clock;
  /** LIST page size (default 500). */
  pageSize?: number;
  /**
   * resourceVersion of the first paginated LIST (default `'0'`: served from the API server's
   * cache). A watch-list, the default, always reads consistently (resourceVersion unset).
   */
  initialListResourceVersion?: string;
  /**
   * List with a watch-list stream (`sendInitialEvents`, Kubernetes 1.27+, on by default from 1.32)
   * rather than paginated LISTs. Default true; a server that refuses it gets paginated lists.
   */
  watchList?: boolean;
  /**
   * Applied to every object before it is cached. Default: drop managedFields, with
   * `compactForCache` for objects of a LIST body (their strings may be slices of the whole body)
   * and `dropManagedFields` for objects of watch lines (parsed one short line at a time, their
   * strings are already their own).
   */
  transform?: (object: T) => T;
  /** Called for every store change, in order, synchronously after the store changed. */
  onChange?: (change: StoreChange<T>) => void;
  /** Called once, synchronously, right after the first complete list was stored and its changes emitted. */
  onSynced?: () => void;
  /** Called for every failure; the reflector keeps retrying after `info.retryInMs`. */
  onError?: (error: Error, info: ReflectorErrorInfo) => void;
  /**
   * Called when the server stops serving the kind (a 404: its CRD deleted, or not installed yet)
   * and when it serves it again. While not served the informer is stopped: its store emptied, no
   * watch, one list every `notServedRetryMs` to notice the kind's return. Not an error.
   */
  onServedChange?: (served: boolean) => void;
  backoff?: BackoffOptions;
  /**
   * While the server answers 404 for the kind (its CRD is not installed, or was deleted), ask
   * again this often instead of backing off, so the cache starts soon after the CRD appears.
   * Default 2 s.
   */
  notServedRetryMs?: number;
  /** Randomness for watch timeouts and jitter (default Math.random). */
  random?: () => number;
}

/**
 * Keeps a {@link Store} equal to the server's objects of one kind (and selection): lists, then
 * watches, forever, until stopped. Runs the `step` machine and owns what it leaves out:
 * applying events to the store, backoff on errors, and reporting.
 *
 * - the list as a watch-list stream where the server supports it (a consistent read, as client-go's;
 *   objects transformed as they arrive, the stream then carries on as the watch; after a failed
 *   stream one LIST, then watch-list again at the next relist); else paginated LISTs (500 per page; one full
 *   list if a continue token expires). The first list is stored batch by batch as it arrives, its
 *   handlers called as it comes; {@link Reflector.hasSynced} turns true once it is complete;
 * - WATCH from the list's resourceVersion with bookmarks and a server timeout of 5–10 min, re-watch
 *   from the last seen resourceVersion when a watch ends;
 * - on 410 Gone: relist and replace the store at once, emitting the difference (deletes of objects
 *   that vanished meanwhile carry `finalStateUnknown`);
 * - any other error: report it, back off (800 ms → 30 s, ×2, jitter, reset after 2 min healthy), retry.
 *   It never stops by itself.
 */
export class Reflector<T extends KubeObject = KubeObject> {
  readonly store: Store<T>;
  private readonly clock: Clock;
  private readonly ctx: WatcherContext<T>;
  private readonly backoff: Backoff;
  /** For objects of a LIST body. */
  private readonly transform: (object: T) => T;
  /** For objects of a watch stream (watch-list included). */
  private readonly transformEvent: (object: T) => T;
  private readonly onChange: ((change: StoreChange<T>) => void) | undefined;
  private readonly onSynced: (() => void) | undefined;
  private readonly onError: (error: Error, info: ReflectorErrorInfo) => void;
  private readonly onServedChange: ((served: boolean) => void) | undefined;
  private readonly abort = new AbortController();
  private state: WatcherState<T> = { phase: 'Empty', quorum: false, paginate: true };
  private running: Promise<void> | undefined;
  private stopped = false;
  private synced = false;
  private lastRv = '';
  /** The server refused a watch-list once: list in pages for the rest of this reflector's life. */
  private watchListRefused = false;
  /** 410s in a row without a watch event in between: a second one is a reason to back off. */
  private goneStreak = 0;
  private readonly syncWaiters = new Set<() => void>();
  private readonly health: ReflectorHealth;
  private readonly notServedRetryMs: number;
  /**
   * The first list's objects, stored as they arrive (watch-list batches, list pages) when the store
   * was empty as that list began: with nothing to compare them to, waiting for the end would change
   * nothing but the time, while the server is still sending.
   */
  private arriving: ArrivingList<T> | undefined;
  /** Resolves the step in flight with undefined when stop() is called (see untilStopped). */
  private wakeOnStop: (() => void) | undefined;

  constructor(
    transport: ApiTransport,
    readonly type: ResourceType<T>,
    options: ReflectorOptions<T> = {},
    store: Store<T> = new Store<T>(),
  ) {
    this.store = store;
    this.clock = options.clock ?? realClock;
    const random = options.random ?? Math.random;
    this.backoff = new Backoff(this.clock, { random, ...options.backoff });
    this.notServedRetryMs = options.notServedRetryMs ?? 2_000;
    this.health = new ReflectorHealth(this.clock);
    this.abort.signal.addEventListener('abort', () => this.wakeOnStop?.(), { once: true });
    // The defaults also pool repeated metadata strings (see intern.ts): the objects are their own.
    this.transform = options.transform ?? ((o) => internCommonStrings(compactForCache(o)));
    this.transformEvent = options.transform ?? ((o) => internCommonStrings(dropManagedFields(o)));
    this.onChange = options.onChange;
    this.onSynced = options.onSynced;
    this.onServedChange = options.onServedChange;
    this.onError =
      options.onError ??
      ((error, info) =>
        console.warn(`reflector ${type.plural}: ${error.message}; retrying in ${info.retryInMs} ms`));
    this.ctx = {
      transport,
      type,
      namespace: options.namespace,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      pageSize: options.pageSize ?? 500,
      initialListResourceVersion: options.initialListResourceVersion ?? '0',
      clock: this.clock,
      // Spread over 5–10 minutes so a fleet of watches does not reconnect in lockstep.
      watchTimeoutSeconds: () => 300 + Math.floor(random() * 300),
      useWatchList: () => options.watchList !== false && !this.watchListRefused,
      transform: this.transform,
      transformStreamed: this.transformEvent,
      // The default watch transform drops managedFields: let the transport skip them.
      omitManagedFields: options.transform === undefined,
    };
  }

  /** Starts listing and watching in the background. Idempotent. */
  start(): void {
    if (this.running || this.stopped) return;
    this.running = this.run();
  }

  /** Stops for good; resolves when the loop has ended and the watch is closed. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    if (this.state.phase === 'Watching') this.state.stream.stop();
    await this.running;
  }

  /** True once the first complete list has been stored. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves when {@link hasSynced} becomes true (at once if it is). */
  whenSynced(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.add(resolve));
  }

  /** The resourceVersion the store is known to be current at (`''` before the first list). */
  lastSyncResourceVersion(): string {
    return this.lastRv;
  }

  /** False while the server answers 404 for the kind (a CRD not installed, or deleted). */
  kindServed(): boolean {
    return this.health.served;
  }

  /** How long lists and watches have failed without a success between (0 while healthy). */
  failingForMs(): number {
    return this.health.failingForMs();
  }

  /** Resolves when {@link hasSynced} is true or the kind is found not served. */
  whenSyncedOrUnserved(): Promise<void> {
    return this.synced ? Promise.resolve() : this.health.whenUnserved();
  }

  /** The machine's current phase, for diagnostics and tests. */
  phase(): WatcherState<T>['phase'] {
    return this.state.phase;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const phase = this.state.phase;
      const pending = step(this.ctx, this.state).catch(
        // step() reports failures in its result; this only guards against a bug there.
        (err: unknown): StepResult<T> => ({
          next: this.state,
          error: err instanceof Error ? err : new Error(String(err)),
        }),
      );
      const result = await this.untilStopped(pending);
      if (this.stopped || result === undefined) {
        // A watch that opens after stop() must still be closed.
        void pending.then((late) => {
          if (late.next.phase === 'Watching') late.next.stream.stop();
        });
        break;
      }
      this.state = result.next;
      const { repeat, lost, regained } = this.health.observe(result.error);
      if (lost) this.stopServing();
      if (lost || regained) this.onServedChange?.(!lost);
      this.storeArriving(result.next);
      if (result.watchListRefused) this.watchListRefused = true;
      if (result.event) this.apply(result.event);
      let error = result.error;
      if (result.gone && ++this.goneStreak > 1)
        error = new Error(`${this.type.plural}: 410 Gone again right after a relist`);
      if (error) {
        const delay = this.health.served ? this.backoff.next() : this.notServedRetryMs;
        if (!repeat && !lost) this.report(error, { phase, retryInMs: delay });
        try {
          await sleep(this.clock, delay, this.abort.signal);
        } catch {
          break; // aborted by stop()
        }
      }
    }
  }

  /**
   * The kind is gone (its CRD deleted): what the store still holds is gone with it. Deleting a CRD
   * deletes its objects first, so this is usually nothing; the deletes say `finalStateUnknown`.
   */
  private stopServing(): void {
    // A kind that comes back is listed afresh: a watch from the old resourceVersion would miss
    // whatever was created with it.
    if (this.state.phase === 'Watching') this.state.stream.stop();
    this.state = { phase: 'Empty', quorum: true, paginate: true };
    const gone = this.store.replace([]);
    for (const object of gone.deleted) this.emit({ type: 'delete', object, finalStateUnknown: true });
  }

  /**
   * `work`'s result, or undefined as soon as stop() is called, so a request the transport never
   * answers cannot hold stop() up. One abort listener for the reflector's life wakes the step in
   * flight (a listener per step was a cost per watch event); it holds only the current step's
   * resolver, so results of past steps (a whole list) are not kept alive.
   */
  private untilStopped(work: Promise<StepResult<T>>): Promise<StepResult<T> | undefined> {
    if (this.abort.signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.wakeOnStop = () => resolve(undefined);
      void work.then((result) => {
        this.wakeOnStop = undefined;
        resolve(result);
      });
    });
  }

  private report(error: Error, info: ReflectorErrorInfo): void {
    try {
      this.onError(error, info);
    } catch {
      // A failing error hook must not stop the reflector.
    }
  }

  private emit(change: StoreChange<T>): void {
    if (!this.onChange) return;
    try {
      this.onChange(change);
    } catch (err) {
      this.report(err instanceof Error ? err : new Error(String(err)), {
        phase: this.state.phase,
        retryInMs: 0,
      });
    }
  }

  /** While the first list comes in, stores what arrived (see {@link Reflector.arriving}). */
  private storeArriving(state: WatcherState<T>): void {
    if (this.synced || (state.phase !== 'Streaming' && state.phase !== 'Paging')) return;
    if (this.arriving?.items !== state.items) {
      // A list begins (or began again after a failure, over what the failed one stored).
      this.arriving = this.store.size === 0 ? { items: state.items, stored: 0 } : undefined;
    }
    if (this.arriving) this.storeArrived(this.arriving);
  }

  /** Stores the list's objects not stored yet, as {@link Store.replace} would, emitting each change. */
  private storeArrived(arriving: ArrivingList<T>): void {
    const { items } = arriving;
    for (let i = arriving.stored; i < items.length; i++) {
      const object = items[i] as T;
      // Stored first (frozen in place: `object` is the stored instance), then looked at what it
      // replaced: one lookup per object, and a list seldom names a key twice.
      const old = this.store.upsert(object);
      if (old === undefined) this.emit({ type: 'add', object, initialList: true });
      // The same key twice in one list: the later object wins, as in a replace...
      else if (listedChanges(old, object)) this.emit({ type: 'update', old, object });
      // ...unless it changes nothing: the first stays, as handlers saw it.
      else this.store.upsert(old);
    }
    arriving.stored = items.length;
  }

  private apply(event: WatcherEvent<T>): void {
    switch (event.type) {
      case 'Replace': {
        const arriving = this.arriving;
        this.arriving = undefined;
        if (arriving?.items === event.items) {
          // The rest of a list stored as it came: the store began empty, so nothing is to be deleted.
          this.storeArrived(arriving);
        } else {
          const diff = this.store.replace(event.items); // transformed by the machine as they came
          const initialList = !this.synced;
          for (const object of diff.added) this.emit({ type: 'add', object, initialList });
          for (const u of diff.updated) this.emit({ type: 'update', old: u.old, object: u.new });
          for (const object of diff.deleted) this.emit({ type: 'delete', object, finalStateUnknown: true });
        }
        this.lastRv = event.resourceVersion;
        if (!this.synced) {
          this.synced = true;
          this.onSynced?.();
          for (const resolve of this.syncWaiters) resolve();
          this.syncWaiters.clear();
          this.health.wake();
        }
        return;
      }
      case 'Apply': {
        this.goneStreak = 0;
        const object = this.transformEvent(event.object);
        const old = this.store.upsert(object);
        this.lastRv = object.metadata.resourceVersion ?? this.lastRv;
        this.emit(old ? { type: 'update', old, object } : { type: 'add', object });
        return;
      }
      case 'Delete': {
        this.goneStreak = 0;
        const object = this.transformEvent(event.object);
        this.lastRv = object.metadata.resourceVersion ?? this.lastRv;
        // A delete of something never seen (e.g. it left our selection unseen) changes nothing.
        if (this.store.deleteByName(object.metadata.namespace, object.metadata.name ?? '') !== undefined) {
          // Handlers get it frozen, like every cached object.
          this.emit({ type: 'delete', object: deepFreeze(object), finalStateUnknown: false });
        }
        return;
      }
      case 'Bookmark':
        this.goneStreak = 0;
        this.lastRv = event.resourceVersion;
        return;
    }
  }
}
