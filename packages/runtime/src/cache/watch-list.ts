/**
 * The watch-list steps of the {@link step} machine (see watcher.ts for the diagram): open one
 * watch that streams the initial objects, collect them as they arrive, and hand over to the normal
 * watch on the same stream at the `k8s.io/initial-events-end` bookmark.
 */
import { ApiError, isGone } from '../api/errors.js';
import type { KubeObject, ListOptions } from '../api/types.js';
import { type WatchItem, WatchStream } from './watch-stream.js';
import type { StepResult, WatcherContext, WatcherState } from './watcher.js';

/** The annotation of the bookmark that ends a watch-list's initial events. */
export const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/** The namespace and selectors of every request of the machine. */
export function selection<T extends KubeObject>(
  ctx: WatcherContext<T>,
): Pick<ListOptions, 'namespace' | 'labelSelector' | 'fieldSelector'> {
  const s: Pick<ListOptions, 'namespace' | 'labelSelector' | 'fieldSelector'> = {};
  if (ctx.namespace) s.namespace = ctx.namespace;
  if (ctx.labelSelector) s.labelSelector = ctx.labelSelector;
  if (ctx.fieldSelector) s.fieldSelector = ctx.fieldSelector;
  return s;
}

export const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));
export const relist = <T extends KubeObject>(): WatcherState<T> => ({
  phase: 'Empty',
  quorum: true,
  paginate: true,
});

type Empty<T extends KubeObject> = Extract<WatcherState<T>, { phase: 'Empty' }>;
type Streaming<T extends KubeObject> = Extract<WatcherState<T>, { phase: 'Streaming' }>;

/**
 * How a server without watch-list refuses it: 422 Invalid (the request validation of 1.27+ with
 * the WatchList feature off, and older servers, which forbid `resourceVersionMatch` on a watch);
 * 400 from anything stricter in between.
 */
export function refusesWatchList(err: unknown): boolean {
  return err instanceof ApiError && (err.code === 422 || err.code === 400);
}

/**
 * A failure worth the same watch-list again after backoff (client-go's `isWatchErrorRetriable`:
 * the server is overloaded or not there); any other makes the next list a LIST.
 */
function retriesWatchList(err: unknown): boolean {
  if (err instanceof ApiError) return err.code === 429;
  return (err as { code?: unknown } | undefined)?.code === 'ECONNREFUSED';
}

/** After a failed watch-list: a LIST, of the latest state, as client-go falls back. */
const listInstead = <T extends KubeObject>(): WatcherState<T> => ({
  phase: 'Empty',
  quorum: true,
  paginate: true,
  listOnce: true,
});

/**
 * Empty → Streaming: asks for the current objects as a stream, then the changes after them. The
 * resourceVersion is unset: a consistent read of the latest state, as client-go's first watch-list
 * (`'0'` would let a lagging watch cache answer with an older state than this process saw).
 */
export async function openWatchList<T extends KubeObject>(
  ctx: WatcherContext<T>,
  state: Empty<T>,
): Promise<StepResult<T>> {
  const stream = new WatchStream<T>(ctx.clock, ctx.omitManagedFields === true);
  try {
    const handle = await ctx.transport.watch(
      ctx.type,
      {
        ...selection(ctx),
        resourceVersionMatch: 'NotOlderThan',
        sendInitialEvents: true,
        allowWatchBookmarks: true,
        timeoutSeconds: ctx.watchTimeoutSeconds(),
      },
      stream.callbacks,
    );
    stream.attach(handle);
    return { next: { phase: 'Streaming', stream, items: [], resourceVersion: '' } };
  } catch (err) {
    if (refusesWatchList(err)) return { next: { ...state, paginate: true }, watchListRefused: true };
    if (isGone(err)) return { next: relist(), gone: true };
    return { next: retriesWatchList(err) ? state : listInstead(), error: asError(err) };
  }
}

/**
 * Streaming: takes every item the stream has buffered (waiting for the first), so a burst of
 * initial events costs one step, not one per object. Objects are transformed as they arrive.
 */
export async function streamInitialEvents<T extends KubeObject>(
  ctx: WatcherContext<T>,
  state: Streaming<T>,
): Promise<StepResult<T>> {
  const { stream, items } = state;
  let resourceVersion = state.resourceVersion;
  for (let item: WatchItem<T> | undefined = await stream.next(); item; item = stream.poll()) {
    if (item.kind === 'closed') {
      // Not a list until the bookmark came: start over, after backoff.
      stream.stop();
      const cause = item.error?.message ?? 'the stream ended';
      const error = new Error(
        `watch-list of ${ctx.type.plural}: ${cause} before the initial-events-end bookmark`,
      );
      return { next: listInstead(), error };
    }
    const event = item.event;
    switch (event.type) {
      case 'ADDED':
        items.push(ctx.transformStreamed(event.object));
        break;
      case 'BOOKMARK': {
        resourceVersion = event.object.metadata?.resourceVersion || resourceVersion;
        if (event.object.metadata?.annotations?.[INITIAL_EVENTS_END] !== 'true') break;
        return {
          event: { type: 'Replace', items, resourceVersion },
          next: { phase: 'Watching', resourceVersion, stream },
        };
      }
      case 'ERROR': {
        stream.stop();
        const error = new ApiError(event.status);
        // 410: the stream's start was compacted away meanwhile: a new consistent stream at once.
        if (error.code === 410) return { next: relist(), gone: true };
        return { next: retriesWatchList(error) ? relist() : listInstead(), error };
      }
      default: {
        // The initial events are all ADDED; anything else means the server does not stream a list.
        stream.stop();
        const error = new Error(
          `watch-list of ${ctx.type.plural}: ${event.type} before the initial-events-end bookmark`,
        );
        return { next: listInstead(), error };
      }
    }
  }
  return { next: { ...state, resourceVersion } };
}
