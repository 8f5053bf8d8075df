/**
 * The reflector's watch-list path on the in-memory cluster (which streams initial events and the
 * `k8s.io/initial-events-end` bookmark as the API server does); the real apiserver and a refusing
 * one are in watch-list.envtest.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { apiError } from '../../src/api/errors.js';
import type { WatchOptions } from '../../src/api/types.js';
import { Reflector, type ReflectorErrorInfo, type StoreChange } from '../../src/cache/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import type { ApiTransport } from '../../src/transport/transport.js';
import { type Widget, Widget as WidgetType, widget } from '../testing/fixtures.js';

const reflectors: Reflector<Widget>[] = [];
afterEach(async () => {
  await Promise.all(reflectors.splice(0).map((r) => r.stop()));
});

function setup(wrap?: (cluster: FakeCluster) => ApiTransport) {
  const clock = new ManualClock();
  const cluster = new FakeCluster({ clock, kinds: [WidgetType] });
  const changes: StoreChange<Widget>[] = [];
  const errors: Array<{ error: Error; info: ReflectorErrorInfo }> = [];
  const watches: WatchOptions[] = [];
  cluster.addFault((r) => {
    if (r.verb === 'watch') watches.push(r.options as WatchOptions);
    return undefined;
  });
  const reflector = new Reflector<Widget>(wrap ? wrap(cluster) : cluster, WidgetType, {
    clock,
    onChange: (c) => changes.push(c),
    onError: (error, info) => errors.push({ error, info }),
    random: () => 0.5,
  });
  reflectors.push(reflector);
  return { clock, cluster, reflector, changes, errors, watches };
}

/** What a server without watch-list answers (request validation, before the watch opens). */
const refuseWatchList = (cluster: FakeCluster) =>
  cluster.addFault((r) =>
    r.verb === 'watch' && (r.options as WatchOptions).sendInitialEvents
      ? apiError(422, 'Invalid', 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden')
      : undefined,
  );

describe('Reflector (watch-list)', () => {
  it('syncs from one watch-list stream, without a LIST, and keeps watching on it', async () => {
    const { clock, cluster, reflector, changes, watches } = setup();
    cluster.seed(WidgetType, widget('a'), widget('b'));
    await cluster.create(WidgetType, widget('c'), { fieldManager: 'someone' });
    reflector.start();
    await clock.advanceAsync(0);
    expect(reflector.hasSynced()).toBe(true);
    expect(reflector.store.keys().sort()).toEqual(['default/a', 'default/b', 'default/c']);
    // Transformed as they arrived, like listed objects: managedFields dropped, frozen.
    const streamed = reflector.store.get('default/c') as Widget;
    expect(streamed.metadata.managedFields).toBeUndefined();
    expect(Object.isFrozen(streamed.metadata)).toBe(true);
    expect(cluster.requestCount('list')).toBe(0);
    expect(watches).toHaveLength(1);
    expect(watches[0]).toMatchObject({
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: true,
    });
    // A consistent read, as client-go's: never '0', which a lagging watch cache may answer.
    expect(watches[0]?.resourceVersion).toBeUndefined();
    expect(reflector.lastSyncResourceVersion()).toBe(cluster.currentResourceVersion());
    await cluster.create(WidgetType, widget('d'));
    await clock.advanceAsync(0);
    expect(watches).toHaveLength(1); // the same stream carried the change
    expect(changes.map((c) => `${c.type}:${c.object.metadata.name}`)).toEqual([
      'add:a',
      'add:b',
      'add:c',
      'add:d',
    ]);
    expect(changes.slice(0, 3).every((c) => c.type === 'add' && c.initialList)).toBe(true);
  });

  it('falls back to paginated lists when the server refuses watch-list, and does not ask again', async () => {
    const { clock, cluster, reflector, errors, watches } = setup();
    refuseWatchList(cluster);
    cluster.seed(WidgetType, widget('a'), widget('b'));
    reflector.start();
    await clock.advanceAsync(0);
    expect(reflector.hasSynced()).toBe(true);
    expect(reflector.store.size).toBe(2);
    expect(cluster.requestCount('list')).toBe(1);
    expect(errors).toEqual([]); // a refusal is an answer, not a failure
    // A 410 later relists with a LIST again, not another watch-list attempt.
    cluster.dropWatches(new Error('reset'));
    cluster.failNext('watch', 410);
    await clock.advanceAsync(5_000);
    expect(cluster.requestCount('list')).toBe(2);
    expect(watches.filter((w) => w.sendInitialEvents)).toHaveLength(1);
    expect(reflector.phase()).toBe('Watching');
  });

  it('falls back to one LIST when the stream ends before the initial-events-end bookmark', async () => {
    // The first watch-list's connection breaks after the objects, before the bookmark.
    let cut = false;
    const { clock, cluster, reflector, errors } = setup((cluster) => {
      const transport = Object.create(cluster) as FakeCluster;
      transport.watch = (type, options, callbacks) =>
        cluster.watch(type, options, {
          onEvent: (event) => {
            if (!cut && event.type === 'BOOKMARK') {
              cut = true;
              callbacks.onClose(new Error('connection reset'));
            } else callbacks.onEvent(event);
          },
          onClose: (error) => callbacks.onClose(error),
        });
      return transport;
    });
    cluster.seed(WidgetType, widget('a'));
    reflector.start();
    await clock.advanceAsync(0);
    expect(cut).toBe(true);
    expect(reflector.hasSynced()).toBe(false);
    expect(errors[0]?.error.message).toMatch(/connection reset before the initial-events-end bookmark/);
    await clock.advanceAsync(2_000); // the backoff (800 ms, jittered)
    expect(reflector.hasSynced()).toBe(true);
    expect(reflector.store.keys()).toEqual(['default/a']);
    // client-go's fallback: progress through a LIST (the latest state), then a plain watch.
    expect(cluster.requestCount('list')).toBe(1);
    expect(reflector.phase()).toBe('Watching');
  });

  it('after a 410 in the streamed list, streams again at once with a consistent read', async () => {
    let gone = false;
    const { clock, cluster, reflector, errors, watches } = setup((cluster) => {
      const transport = Object.create(cluster) as FakeCluster;
      transport.watch = (type, options, callbacks) =>
        cluster.watch(type, options, {
          onEvent: (event) => {
            if (!gone && event.type === 'BOOKMARK') {
              gone = true;
              callbacks.onEvent({
                type: 'ERROR',
                status: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired' },
              });
            } else callbacks.onEvent(event);
          },
          onClose: (error) => callbacks.onClose(error),
        });
      return transport;
    });
    cluster.seed(WidgetType, widget('a'));
    reflector.start();
    await clock.advanceAsync(0); // no backoff: no virtual time passes
    expect(gone).toBe(true);
    expect(reflector.hasSynced()).toBe(true);
    expect(errors).toEqual([]);
    expect(cluster.requestCount('list')).toBe(0);
    expect(watches).toHaveLength(2);
    expect(watches.every((w) => w.sendInitialEvents && w.resourceVersion === undefined)).toBe(true);
  });

  it('relists with a fresh watch-list after 410 and emits the difference', async () => {
    const { clock, cluster, reflector, changes, watches } = setup();
    cluster.seed(WidgetType, widget('keep'), widget('vanish'));
    reflector.start();
    await clock.advanceAsync(0);
    changes.length = 0;
    cluster.failNext('watch', 503);
    cluster.dropWatches(new Error('connection reset'));
    await clock.advanceAsync(0);
    await cluster.delete(WidgetType, { namespace: 'default', name: 'vanish' });
    await cluster.create(WidgetType, widget('new'));
    cluster.compact();
    await clock.advanceAsync(30_000);
    expect(reflector.store.keys().sort()).toEqual(['default/keep', 'default/new']);
    expect(changes.map((c) => `${c.type}:${c.object.metadata.name}`).sort()).toEqual([
      'add:new',
      'delete:vanish',
    ]);
    const relist = watches.at(-1); // after the relist, its stream is the watch
    expect(relist).toMatchObject({ sendInitialEvents: true });
    expect(relist?.resourceVersion).toBeUndefined(); // a quorum read: the latest state
    expect(cluster.requestCount('list')).toBe(0);
  });
});
