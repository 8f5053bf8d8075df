/**
 * The list-then-watch protocol as an explicit state machine: {@link step} takes a state, performs
 * one request (or waits for one watch item) and returns what it saw plus the next state. No
 * timers, no store, no retries here: the {@link Reflector} runs the machine and owns backoff, so
 * each concern lives in one place (the shape of kube-rs's `watcher`).
 *
 * ```
 * Empty ──list──▶ Paging ──last page──▶ Listed ──watch──▶ Watching ──event──▶ Watching
 *   ▲  (410 on a continue token: full list) │               │ clean end ▶ Listed (same RV)
 *   └──────────── 410 Gone ◀────────────────┴───────────────┘ error ▶ Listed (after backoff)
 * ```
 */

import { ApiError, isGone } from '../client/errors.js';
import type { ApiTransport, WatchCallbacks, WatchHandle } from '../client/transport.js';
import type { KubeObject, ListOptions, ResourceType, WatchEvent } from '../client/types.js';
import type { Clock } from '../clock.js';

/** Where the machine is. Each state carries exactly what the next request needs. */
export type WatcherState<T extends KubeObject> =
  /** Nothing listed yet (or a relist is due). `quorum`: list the latest state, not a cached one. */
  | { readonly phase: 'Empty'; readonly quorum: boolean; readonly paginate: boolean }
  /** A paginated list is in progress; `items` holds the pages so far. */
  | {
      readonly phase: 'Paging';
      readonly continueToken: string;
      readonly items: readonly T[];
      readonly resourceVersion: string;
    }
  /** Listed (or a watch ended): watch from `resourceVersion`. */
  | { readonly phase: 'Listed'; readonly resourceVersion: string }
  /** A watch is open; `resourceVersion` is the last one seen on it. */
  | { readonly phase: 'Watching'; readonly resourceVersion: string; readonly stream: WatchStream<T> };

/** What one step observed. */
export type WatcherEvent<T extends KubeObject> =
  /** A complete list: the store must become exactly `items`. */
  | { readonly type: 'Replace'; readonly items: readonly T[]; readonly resourceVersion: string }
  /** An object was added or changed. */
  | { readonly type: 'Apply'; readonly object: T }
  | { readonly type: 'Delete'; readonly object: T }
  /** Nothing changed, but the stream is known current up to `resourceVersion`. */
  | { readonly type: 'Bookmark'; readonly resourceVersion: string };

/** The outcome of one {@link step}. */
export interface StepResult<T extends KubeObject> {
  readonly next: WatcherState<T>;
  readonly event?: WatcherEvent<T>;
  /** A failure: the runner reports it and waits (backs off) before the next step. */
  readonly error?: Error;
  /** The server said 410 Gone: the next step relists (without backoff, unless it repeats). */
  readonly gone?: boolean;
}

/** Fixed inputs of the machine. */
export interface WatcherContext<T extends KubeObject> {
  readonly transport: ApiTransport;
  readonly type: ResourceType<T>;
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Page size of lists (client-go: 500). */
  readonly pageSize: number;
  /** resourceVersion of the first, non-quorum list: `'0'` lets the server answer from its cache. */
  readonly initialListResourceVersion: string | undefined;
  readonly clock: Clock;
  /** Server-side watch timeout for the next watch, in seconds. */
  watchTimeoutSeconds(): number;
}

/** A watch stream that watches are too short to be healthy below (client-go uses the same 1 s). */
const SHORT_WATCH_MS = 1000;

type WatchItem<T extends KubeObject> =
  | { kind: 'event'; event: WatchEvent<T> }
  | { kind: 'closed'; error?: Error };

/**
 * Turns the callbacks of a transport watch into a pull-based stream: items are buffered in order
 * and handed out one per {@link next} call. After the close item nothing more is accepted.
 */
export class WatchStream<T extends KubeObject> {
  private readonly buffer: WatchItem<T>[] = [];
  private waiter: ((item: WatchItem<T>) => void) | undefined;
  private closed = false;
  private handle: WatchHandle | undefined;
  private stopRequested = false;
  /** When the watch was requested, and how many events it delivered: to spot useless watches. */
  readonly startedAt: number;
  eventCount = 0;

  constructor(clock: Clock) {
    this.startedAt = clock.now();
  }

  readonly callbacks: WatchCallbacks<T> = {
    onEvent: (event) => {
      this.eventCount++;
      this.push({ kind: 'event', event });
    },
    onClose: (error) => this.push(error ? { kind: 'closed', error } : { kind: 'closed' }),
  };

  attach(handle: WatchHandle): void {
    this.handle = handle;
    if (this.stopRequested) handle.stop();
  }

  /** The next item; resolves with the close item once the stream has ended. */
  next(): Promise<WatchItem<T>> {
    const item = this.buffer.shift();
    if (item) return Promise.resolve(item);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /** Ends the watch; a pending {@link next} resolves with a clean close even if the transport never calls back. */
  stop(): void {
    this.stopRequested = true;
    this.handle?.stop();
    this.push({ kind: 'closed' });
  }

  private push(item: WatchItem<T>): void {
    if (this.closed) return;
    if (item.kind === 'closed') this.closed = true;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter(item);
    } else this.buffer.push(item);
  }
}

function selection<T extends KubeObject>(
  ctx: WatcherContext<T>,
): Pick<ListOptions, 'namespace' | 'labelSelector' | 'fieldSelector'> {
  const s: Pick<ListOptions, 'namespace' | 'labelSelector' | 'fieldSelector'> = {};
  if (ctx.namespace) s.namespace = ctx.namespace;
  if (ctx.labelSelector) s.labelSelector = ctx.labelSelector;
  if (ctx.fieldSelector) s.fieldSelector = ctx.fieldSelector;
  return s;
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));
const relist = <T extends KubeObject>(): WatcherState<T> => ({
  phase: 'Empty',
  quorum: true,
  paginate: true,
});

/** Runs one transition of the list/watch machine. Never throws: failures come back in the result. */
export async function step<T extends KubeObject>(
  ctx: WatcherContext<T>,
  state: WatcherState<T>,
): Promise<StepResult<T>> {
  switch (state.phase) {
    case 'Empty': {
      const options: ListOptions = { ...selection(ctx) };
      if (state.paginate) options.limit = ctx.pageSize;
      if (!state.quorum && ctx.initialListResourceVersion !== undefined)
        options.resourceVersion = ctx.initialListResourceVersion;
      try {
        const page = await ctx.transport.list(ctx.type, options);
        if (page.continue) {
          return {
            next: {
              phase: 'Paging',
              continueToken: page.continue,
              items: page.items,
              resourceVersion: page.resourceVersion,
            },
          };
        }
        return {
          event: { type: 'Replace', items: page.items, resourceVersion: page.resourceVersion },
          next: { phase: 'Listed', resourceVersion: page.resourceVersion },
        };
      } catch (err) {
        // A list can be Gone too (its resourceVersion compacted): go for the latest state.
        if (isGone(err))
          return { next: { phase: 'Empty', quorum: true, paginate: state.paginate }, error: asError(err) };
        return { next: state, error: asError(err) };
      }
    }
    case 'Paging': {
      try {
        const page = await ctx.transport.list(ctx.type, {
          ...selection(ctx),
          limit: ctx.pageSize,
          continue: state.continueToken,
        });
        const items = [...state.items, ...page.items];
        if (page.continue) return { next: { ...state, continueToken: page.continue, items } };
        return {
          event: { type: 'Replace', items, resourceVersion: state.resourceVersion },
          next: { phase: 'Listed', resourceVersion: state.resourceVersion },
        };
      } catch (err) {
        // The continue token expired (compaction): fall back to one full, unpaginated list.
        if (isGone(err)) return { next: { phase: 'Empty', quorum: true, paginate: false } };
        return { next: state, error: asError(err) };
      }
    }
    case 'Listed': {
      const stream = new WatchStream<T>(ctx.clock);
      try {
        const handle = await ctx.transport.watch(
          ctx.type,
          {
            ...selection(ctx),
            resourceVersion: state.resourceVersion,
            allowWatchBookmarks: true,
            timeoutSeconds: ctx.watchTimeoutSeconds(),
          },
          stream.callbacks,
        );
        stream.attach(handle);
        return { next: { phase: 'Watching', resourceVersion: state.resourceVersion, stream } };
      } catch (err) {
        if (isGone(err)) return { next: relist(), gone: true };
        return { next: state, error: asError(err) };
      }
    }
    case 'Watching': {
      const item = await state.stream.next();
      if (item.kind === 'closed') {
        const next: WatcherState<T> = { phase: 'Listed', resourceVersion: state.resourceVersion };
        if (item.error) return { next, error: item.error };
        // A watch that ends at once without a single event is a sick server, not a healthy timeout.
        if (state.stream.eventCount === 0 && ctx.clock.now() - state.stream.startedAt < SHORT_WATCH_MS) {
          return {
            next,
            error: new Error(
              `watch of ${ctx.type.plural} ended after less than ${SHORT_WATCH_MS} ms without events`,
            ),
          };
        }
        return { next };
      }
      const event = item.event;
      switch (event.type) {
        case 'ERROR': {
          state.stream.stop();
          const error = new ApiError(event.status);
          if (error.code === 410) return { next: relist(), gone: true };
          return { next: { phase: 'Listed', resourceVersion: state.resourceVersion }, error };
        }
        case 'BOOKMARK': {
          const rv = event.object.metadata?.resourceVersion || state.resourceVersion;
          return {
            event: { type: 'Bookmark', resourceVersion: rv },
            next: { ...state, resourceVersion: rv },
          };
        }
        default: {
          const rv = event.object.metadata?.resourceVersion || state.resourceVersion;
          const type = event.type === 'DELETED' ? 'Delete' : 'Apply';
          return { event: { type, object: event.object }, next: { ...state, resourceVersion: rv } };
        }
      }
    }
  }
}
