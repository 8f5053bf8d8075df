import type { KubeObject } from '../api/types.js';
import type { StoreChange } from './reflector.js';

/** Reacts to changes of an informer's objects. Any method may be async; see `Listener`. */
export interface EventHandler<T extends KubeObject = KubeObject> {
  /**
   * `initialList`: the object was already there when the informer started (its first list, or the
   * replay a late handler gets), rather than created since; controllers queue it at low priority.
   */
  onAdd?(object: T, info: { initialList: boolean }): void | Promise<void>;
  /** For a periodic resync, `old === object`. */
  onUpdate?(old: T, object: T): void | Promise<void>;
  /** `finalStateUnknown`: the deletion was inferred by a relist; `object` is the last state seen. */
  onDelete?(object: T, info: { finalStateUnknown: boolean }): void | Promise<void>;
}

// The info arguments, shared (and frozen) rather than made per event.
const INITIAL_LIST = Object.freeze({ initialList: true });
const LATER_ADD = Object.freeze({ initialList: false });
const STATE_UNKNOWN = Object.freeze({ finalStateUnknown: true });
const STATE_KNOWN = Object.freeze({ finalStateUnknown: false });

/**
 * Delivers one handler's changes, one at a time, in order. An async handler is awaited before
 * the next change is delivered, so a slow handler delays only itself and never sees events out of
 * order; a synchronous handler is called synchronously. Each handler has its own queue, so one slow
 * handler does not hold back the others (as client-go's per-listener buffers).
 */
export class Listener<T extends KubeObject = KubeObject> {
  // Invariant: queue[head..] are the changes pushed and not yet delivered, in push order.
  private queue: Array<StoreChange<T> | undefined> = [];
  private head = 0;
  private draining = false;
  private removed = false;
  private pushed = 0;
  private processed = 0;
  /** Number of changes that make up this handler's initial state; undefined until known. */
  private syncTarget: number | undefined;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly handler: EventHandler<T>,
    private readonly onError: (error: unknown, change: StoreChange<T>) => void,
  ) {}

  push(change: StoreChange<T>): void {
    if (this.removed) return;
    this.pushed++;
    if (this.draining) {
      this.queue.push(change);
      return;
    }
    // Idle: delivered at once, without an async drain (an informer's list is one push per object).
    // `draining` holds while it runs, so a change pushed from inside the handler waits its turn.
    this.draining = true;
    const pending = this.deliverCatching(change);
    if (pending !== undefined) {
      void this.drain(pending, change);
      return;
    }
    this.processed++;
    if (this.head < this.queue.length && !this.removed) void this.drain(undefined, change);
    else this.becomeIdle();
  }

  /** Declares that everything pushed so far is the initial state. */
  markSyncPoint(): void {
    this.syncTarget ??= this.pushed;
  }

  /** True once the handler has processed the initial state. */
  hasSynced(): boolean {
    return this.syncTarget !== undefined && this.processed >= this.syncTarget;
  }

  /** Resolves when every change pushed so far has been handled (at once when idle). */
  idle(): Promise<void> {
    if (!this.draining) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops delivery; changes not yet delivered are dropped. */
  remove(): void {
    this.removed = true;
    this.queue = [];
    this.head = 0;
  }

  /**
   * Delivers the queued changes in order, awaiting each async handler; `pending` is the delivery
   * of `first` that is still running when the drain begins.
   */
  private async drain(pending: Promise<void> | undefined, first: StoreChange<T>): Promise<void> {
    if (pending !== undefined) await this.settle(pending, first);
    while (this.head < this.queue.length && !this.removed) {
      const change = this.queue[this.head] as StoreChange<T>;
      this.queue[this.head++] = undefined; // let the object go once delivered
      const result = this.deliverCatching(change);
      if (result !== undefined) await this.settle(result, change);
      else this.processed++;
    }
    this.becomeIdle();
  }

  /** Waits for an async handler's delivery of `change`; a rejection goes to `onError`. */
  private async settle(delivery: Promise<void>, change: StoreChange<T>): Promise<void> {
    try {
      await delivery;
    } catch (err) {
      this.onError(err, change);
    }
    this.processed++;
  }

  /** The handler's promise, if it returned one; a synchronous throw goes to `onError`. */
  private deliverCatching(change: StoreChange<T>): Promise<void> | undefined {
    try {
      const result = this.deliver(change);
      return result === undefined ? undefined : result;
    } catch (err) {
      this.onError(err, change);
      return undefined;
    }
  }

  private becomeIdle(): void {
    if (this.head > 0 || this.queue.length > 0) {
      this.queue = [];
      this.head = 0;
    }
    this.draining = false;
    if (this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private deliver(change: StoreChange<T>): void | Promise<void> {
    switch (change.type) {
      case 'add':
        return this.handler.onAdd?.(change.object, change.initialList === true ? INITIAL_LIST : LATER_ADD);
      case 'update':
        return this.handler.onUpdate?.(change.old, change.object);
      case 'delete':
        return this.handler.onDelete?.(change.object, change.finalStateUnknown ? STATE_UNKNOWN : STATE_KNOWN);
    }
  }
}
