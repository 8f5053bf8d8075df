/**
 * Waits for a set of objects to reach a state by listing them once and then watching from the
 * list's resourceVersion: the wait ends as the change lands, not at a poll's next tick, and costs
 * one list and one watch instead of a request per tick.
 */
import { type KubeConfig, Watch } from '@kubernetes/client-node';
import type { ApiAnswer } from './http.js';
import { delay } from './wait.js';

/** An object as a list or watch shows it (only its name is read here). */
export interface Listed {
  metadata: { name: string; resourceVersion?: string };
}

/** One GET through the admin's identity (envtest's raw JSON request). */
export type ListRequest = (method: 'GET', path: string) => Promise<ApiAnswer>;

/**
 * Watches `path` (a collection) with `query` until `onEvent` answers true ('done'), or the watch
 * ends ('ended': the server closed it, its timeout passed, or it failed).
 */
export type WatchUntil = (
  path: string,
  query: Record<string, string | number | boolean>,
  onEvent: (type: string, object: Listed) => boolean,
  timeoutMs: number,
) => Promise<'done' | 'ended'>;

/** A {@link WatchUntil} over client-node's `Watch` with the given identity. */
export function watchUntilWith(kubeConfig: KubeConfig): WatchUntil {
  const watch = new Watch(kubeConfig);
  return (path, query, onEvent, timeoutMs) =>
    new Promise((resolve) => {
      let controller: AbortController | undefined;
      let outcome: 'done' | 'ended' | undefined;
      const finish = (how: 'done' | 'ended') => {
        if (outcome) return;
        outcome = how;
        clearTimeout(timer);
        controller?.abort();
        resolve(how);
      };
      const timer = setTimeout(() => finish('ended'), timeoutMs);
      watch
        .watch(
          path,
          query,
          (type, object: Listed) => {
            if (!outcome && onEvent(type, object)) finish('done');
          },
          () => finish('ended'),
        )
        .then(
          (c) => {
            controller = c;
            if (outcome) c.abort();
          },
          () => finish('ended'),
        );
    });
}

/**
 * Lists `path` with `fieldSelector` until `done` holds for the objects it selects, watching
 * between lists; a watch that ends early (server close, a 410 Gone) lists again. Fails after
 * `timeoutMs` saying `what`.
 */
export async function waitOnList<T extends Listed>(
  request: ListRequest,
  watchUntil: WatchUntil,
  what: string,
  path: string,
  fieldSelector: string,
  done: (objects: T[]) => boolean,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await request('GET', `${path}?fieldSelector=${encodeURIComponent(fieldSelector)}`);
    if (answer.status !== 200) throw new Error(`${what}: listing ${path}: ${JSON.stringify(answer.body)}`);
    const list = answer.body as { items: T[]; metadata: { resourceVersion: string } };
    const objects = new Map(list.items.map((o) => [o.metadata.name, o]));
    if (done([...objects.values()])) return;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`${what}: not within ${timeoutMs} ms`);
    const outcome = await watchUntil(
      path,
      {
        fieldSelector,
        resourceVersion: list.metadata.resourceVersion,
        timeoutSeconds: Math.max(1, Math.ceil(left / 1000)),
      },
      (type, object) => {
        if (type === 'DELETED') objects.delete(object.metadata.name);
        else if (type === 'ADDED' || type === 'MODIFIED') objects.set(object.metadata.name, object as T);
        else return false; // BOOKMARK, ERROR: nothing to judge
        return done([...objects.values()]);
      },
      left,
    );
    if (outcome === 'done') return;
    await delay(100); // a watch refused at once is not retried in a burst
  }
}
