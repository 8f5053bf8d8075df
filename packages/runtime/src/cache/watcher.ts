/**
 * The list-then-watch protocol as an explicit state machine: {@link step} takes a state, performs
 * one request (or waits for watch items) and returns what it saw plus the next state. No
 * timers, no store, no retries here: the {@link Reflector} runs the machine and owns backoff, so
 * each concern lives in one place (the shape of kube-rs's `watcher`).
 *
 * ```
 *        ┌─watch-list─▶ Streaming ──initial-events-end bookmark──────────────┐ (same stream)
 *        │   (refused: 422/400 → paginated lists from then on)              ▼
 * Empty ─┴─list──▶ Paging ──last page──▶ Listed ──watch──▶ Watching ──event──▶ Watching
 *   ▲  (410 on a continue token: full list) │               │ clean end ▶ Listed (same RV)
 *   └──────────── 410 Gone ◀────────────────┴───────────────┘ error ▶ Listed (after backoff)
 * ```
 *
 * Watch-list (`sendInitialEvents=true`, `resourceVersionMatch=NotOlderThan`, bookmarks on, and no
 * resourceVersion: a consistent read, as client-go asks, never a stale watch-cache copy): the
 * server streams the current objects as ADDED events, then a BOOKMARK annotated
 * `k8s.io/initial-events-end: "true"` whose resourceVersion the list is current at; the same stream
 * then carries the changes. Objects are decoded and transformed line by line as they arrive, never
 * held as one large list body. A server without it (before 1.27, or with the WatchList feature
 * off) answers 422 Invalid (`sendInitialEvents is forbidden for watch ...`, or
 * `resourceVersionMatch is forbidden for watch`); the machine then lists in pages, like client-go.
 */

import { ApiError, isGone } from '../api/errors.js';
import type { KubeObject, ListOptions, ResourceType } from '../api/types.js';
import type { Clock } from '../clock.js';
import type { ApiTransport } from '../transport/transport.js';
import { asError, openWatchList, relist, selection, streamInitialEvents } from './watch-list.js';
import { WatchStream } from './watch-stream.js';

export { WatchStream } from './watch-stream.js';

/** Where the machine is. Each state carries exactly what the next request needs. */
export type WatcherState<T extends KubeObject> =
  /**
   * Nothing listed yet (or a relist is due). `quorum`: list the latest state, not a cached one.
   * `listOnce`: a watch-list just failed, so this list is a LIST (client-go's fallback: progress
   * rather than the same failure again); the next relist tries watch-list again.
   */
  | {
      readonly phase: 'Empty';
      readonly quorum: boolean;
      readonly paginate: boolean;
      readonly listOnce?: boolean;
    }
  /**
   * A paginated list is in progress; `items` holds the pages so far (transformed). The array is
   * owned by the machine and grows in place: copying it per page would be quadratic.
   */
  | {
      readonly phase: 'Paging';
      readonly continueToken: string;
      readonly items: T[];
      readonly resourceVersion: string;
    }
  /** A watch-list stream is sending the initial objects; `items` holds them so far (transformed). */
  | {
      readonly phase: 'Streaming';
      readonly stream: WatchStream<T>;
      readonly items: T[];
      readonly resourceVersion: string;
    }
  /** Listed (or a watch ended): watch from `resourceVersion`. */
  | { readonly phase: 'Listed'; readonly resourceVersion: string }
  /** A watch is open; `resourceVersion` is the last one seen on it. */
  | { readonly phase: 'Watching'; readonly resourceVersion: string; readonly stream: WatchStream<T> };

/** What one step observed. */
export type WatcherEvent<T extends KubeObject> =
  /** A complete list: the store must become exactly `items` (already transformed). */
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
  /** The server refused a watch-list request: list in pages from now on. */
  readonly watchListRefused?: boolean;
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
  /**
   * resourceVersion of the first, non-quorum paginated LIST: `'0'` lets the server answer from its
   * cache. A watch-list always reads consistently (resourceVersion unset), as client-go's does.
   */
  readonly initialListResourceVersion: string | undefined;
  readonly clock: Clock;
  /** Server-side watch timeout for the next watch, in seconds. */
  watchTimeoutSeconds(): number;
  /** Whether the next list is a watch-list stream (false once the server refused one). */
  useWatchList(): boolean;
  /** Applied to every object of a LIST page as it arrives (watch events are the runner's to transform). */
  transform(object: T): T;
  /** Applied to every object a watch-list streams, as it arrives. */
  transformStreamed(object: T): T;
  /** The watch transform drops `metadata.managedFields`: the transport may leave them out. */
  readonly omitManagedFields?: boolean;
}

/** A watch stream that watches are too short to be healthy below (client-go uses the same 1 s). */
const SHORT_WATCH_MS = 1000;

/** The state of one phase, narrowed. */
type In<T extends KubeObject, P extends WatcherState<T>['phase']> = Extract<WatcherState<T>, { phase: P }>;

/** Runs one transition of the list/watch machine. Never throws: failures come back in the result. */
export async function step<T extends KubeObject>(
  ctx: WatcherContext<T>,
  state: WatcherState<T>,
): Promise<StepResult<T>> {
  switch (state.phase) {
    case 'Empty':
      if (ctx.useWatchList() && !state.listOnce) return openWatchList(ctx, state);
      return listFirstPage(ctx, state);
    case 'Paging':
      return listNextPage(ctx, state);
    case 'Streaming':
      return streamInitialEvents(ctx, state);
    case 'Listed':
      return openWatch(ctx, state);
    case 'Watching':
      return nextWatchItem(ctx, state);
  }
}

/** Empty, listing: the first (or only) page; a 410 on a cached list asks for the latest state. */
async function listFirstPage<T extends KubeObject>(
  ctx: WatcherContext<T>,
  state: In<T, 'Empty'>,
): Promise<StepResult<T>> {
  const options: ListOptions = { ...selection(ctx) };
  if (state.paginate) options.limit = ctx.pageSize;
  if (!state.quorum && ctx.initialListResourceVersion !== undefined)
    options.resourceVersion = ctx.initialListResourceVersion;
  try {
    const page = await ctx.transport.list(ctx.type, options);
    const items = page.items.map((item) => ctx.transform(item));
    if (page.continue) {
      return {
        next: {
          phase: 'Paging',
          continueToken: page.continue,
          items,
          resourceVersion: page.resourceVersion,
        },
      };
    }
    return {
      event: { type: 'Replace', items, resourceVersion: page.resourceVersion },
      next: { phase: 'Listed', resourceVersion: page.resourceVersion },
    };
  } catch (err) {
    // A list can be Gone too (its resourceVersion compacted): go for the latest state.
    if (isGone(err))
      return { next: { phase: 'Empty', quorum: true, paginate: state.paginate }, error: asError(err) };
    return { next: state, error: asError(err) };
  }
}

/** Paging: the next page, appended in place; the last one makes the Replace. */
async function listNextPage<T extends KubeObject>(
  ctx: WatcherContext<T>,
  state: In<T, 'Paging'>,
): Promise<StepResult<T>> {
  try {
    const page = await ctx.transport.list(ctx.type, {
      ...selection(ctx),
      limit: ctx.pageSize,
      continue: state.continueToken,
    });
    const items = state.items;
    for (const item of page.items) items.push(ctx.transform(item));
    if (page.continue) return { next: { ...state, continueToken: page.continue } };
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

/** Listed: open a watch from the listed resourceVersion (with bookmarks). */
async function openWatch<T extends KubeObject>(
  ctx: WatcherContext<T>,
  state: In<T, 'Listed'>,
): Promise<StepResult<T>> {
  const stream = new WatchStream<T>(ctx.clock, ctx.omitManagedFields === true);
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

/** Watching: the stream's next item, an event, or its end (healthy, failed, or suspiciously short). */
async function nextWatchItem<T extends KubeObject>(
  ctx: WatcherContext<T>,
  state: In<T, 'Watching'>,
): Promise<StepResult<T>> {
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
