import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import type { KubeObject, ListOptions } from '../../src/api/types.js';
import { Reflector, type ReflectorErrorInfo, type StoreChange } from '../../src/cache/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import type { ApiTransport, WatchHandle } from '../../src/transport/transport.js';
import { type Widget, Widget as WidgetType, widget } from '../testing/fixtures.js';

const key = (name: string) => ({ namespace: 'default', name });
const reflectors: Reflector<Widget>[] = [];

// These tests drive the paginated list path: what a server without watch-list gets (the watch-list
// path has its own tests in watch-list.test.ts).
function setup(options: { pageSize?: number; transport?: (c: FakeCluster) => ApiTransport } = {}) {
  const clock = new ManualClock();
  const cluster = new FakeCluster({ clock, kinds: [WidgetType] });
  const changes: StoreChange<Widget>[] = [];
  const errors: Array<{ error: Error; info: ReflectorErrorInfo }> = [];
  let seed = 42;
  const reflector = new Reflector<Widget>(
    options.transport ? options.transport(cluster) : cluster,
    WidgetType,
    {
      clock,
      pageSize: options.pageSize,
      watchList: false,
      onChange: (c) => changes.push(c),
      onError: (error, info) => errors.push({ error, info }),
      // Deterministic randomness: a tiny LCG.
      random: () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed / 2 ** 31;
      },
    },
  );
  reflectors.push(reflector);
  const names = () => reflector.store.keys().sort();
  return { clock, cluster, reflector, changes, errors, names };
}

afterEach(async () => {
  await Promise.all(reflectors.splice(0).map((r) => r.stop()));
});

const summary = (changes: StoreChange<Widget>[]) =>
  changes.map(
    (c) => `${c.type}:${c.object.metadata.name}${c.type === 'delete' && c.finalStateUnknown ? '?' : ''}`,
  );

describe('Reflector (paginated lists)', () => {
  it('lists in pages, syncs, then watches from the list resourceVersion', async () => {
    const { clock, cluster, reflector, changes, names } = setup({ pageSize: 2 });
    for (let i = 0; i < 5; i++) cluster.seed(WidgetType, widget(`w${i}`));
    expect(reflector.hasSynced()).toBe(false);
    reflector.start();
    await clock.advanceAsync(0);
    expect(reflector.hasSynced()).toBe(true);
    expect(names()).toEqual(['default/w0', 'default/w1', 'default/w2', 'default/w3', 'default/w4']);
    expect(cluster.requestCount('list')).toBe(3);
    expect(cluster.openWatches()).toBe(1);
    expect(reflector.lastSyncResourceVersion()).toBe(cluster.currentResourceVersion());
    expect(summary(changes)).toEqual(['add:w0', 'add:w1', 'add:w2', 'add:w3', 'add:w4']);
  });

  it('applies watch events to the store and reports them with the old object', async () => {
    const { clock, cluster, reflector, changes } = setup();
    reflector.start();
    await clock.advanceAsync(0);
    await cluster.create(WidgetType, widget('a'));
    await cluster.patch(WidgetType, key('a'), 'merge', { spec: { size: 2 } });
    await cluster.create(WidgetType, widget('b'));
    await cluster.delete(WidgetType, key('a'));
    await clock.advanceAsync(0);
    expect(summary(changes)).toEqual(['add:a', 'update:a', 'add:b', 'delete:a']);
    const update = changes[1] as Extract<StoreChange<Widget>, { type: 'update' }>;
    expect(update.old.spec?.size).toBe(1);
    expect(update.object.spec?.size).toBe(2);
    expect(reflector.store.keys()).toEqual(['default/b']);
    expect(reflector.lastSyncResourceVersion()).toBe(cluster.currentResourceVersion());
  });

  it('drops managedFields before caching and freezes what it caches', async () => {
    const { clock, cluster, reflector } = setup();
    await cluster.create(WidgetType, widget('a'), { fieldManager: 'someone' });
    expect(cluster.getObject(WidgetType, key('a'))?.metadata.managedFields).toHaveLength(1);
    reflector.start();
    await clock.advanceAsync(0);
    const cached = reflector.store.get('default/a') as Widget;
    expect(cached.metadata.managedFields).toBeUndefined();
    expect(Object.isFrozen(cached.metadata)).toBe(true);
  });

  it('re-watches from the last resourceVersion after a clean end, without relisting', async () => {
    const { clock, cluster, reflector, changes, errors } = setup();
    reflector.start();
    await clock.advanceAsync(0);
    await cluster.create(WidgetType, widget('a'));
    await clock.advanceAsync(0);
    // The server-side timeout (5–10 min) ends the watch cleanly.
    await clock.advanceAsync(10 * 60_000);
    await cluster.create(WidgetType, widget('b'));
    await clock.advanceAsync(0);
    expect(cluster.requestCount('list')).toBe(1);
    expect(cluster.requestCount('watch')).toBeGreaterThanOrEqual(2);
    expect(summary(changes)).toEqual(['add:a', 'add:b']);
    expect(errors).toEqual([]);
  });

  it('keeps its resourceVersion fresh from bookmarks', async () => {
    const { clock, cluster, reflector } = setup();
    reflector.start();
    await clock.advanceAsync(0);
    cluster.registerKind({ group: 'other.dev', version: 'v1', kind: 'X', plural: 'xs', namespaced: false });
    cluster.seed(
      { group: 'other.dev', version: 'v1', kind: 'X', plural: 'xs', namespaced: false },
      { metadata: { name: 'x' } },
    );
    expect(reflector.lastSyncResourceVersion()).not.toBe(cluster.currentResourceVersion());
    cluster.sendBookmarks();
    await clock.advanceAsync(0);
    expect(reflector.lastSyncResourceVersion()).toBe(cluster.currentResourceVersion());
  });

  it('relists on 410 and emits the difference, with finalStateUnknown for vanished objects', async () => {
    const { clock, cluster, reflector, changes, names } = setup();
    cluster.seed(WidgetType, widget('keep'), widget('change'), widget('vanish'));
    reflector.start();
    await clock.advanceAsync(0);
    changes.length = 0;
    // Lose the watch, and fail the re-watch so changes happen while we are blind.
    cluster.failNext('watch', 503);
    cluster.dropWatches(new Error('connection reset'));
    await clock.advanceAsync(0);
    await cluster.patch(WidgetType, key('change'), 'merge', { spec: { size: 9 } });
    await cluster.delete(WidgetType, key('vanish'));
    await cluster.create(WidgetType, widget('new'));
    cluster.compact();
    await clock.advanceAsync(30_000);
    expect(names()).toEqual(['default/change', 'default/keep', 'default/new']);
    expect(summary(changes).sort()).toEqual(['add:new', 'delete:vanish?', 'update:change']);
    expect(cluster.requestCount('list')).toBe(2);
    expect(cluster.openWatches()).toBe(1);
    expect(reflector.lastSyncResourceVersion()).toBe(cluster.currentResourceVersion());
  });

  it('falls back to a full list when a continue token expires', async () => {
    const seen: ListOptions[] = [];
    const { clock, cluster, reflector, names } = setup({ pageSize: 2 });
    for (let i = 0; i < 5; i++) cluster.seed(WidgetType, widget(`w${i}`));
    let compacted = false;
    cluster.addFault((r) => {
      const o = (r.options ?? {}) as ListOptions;
      if (r.verb === 'list') seen.push(o);
      if (r.verb === 'list' && o.continue && !compacted) {
        // A write and a compaction between two pages: the token is now too old.
        compacted = true;
        cluster.seed(WidgetType, widget('w9'));
        cluster.compact();
      }
      return undefined;
    });
    reflector.start();
    await clock.advanceAsync(0);
    expect(reflector.hasSynced()).toBe(true);
    expect(names()).toHaveLength(6);
    expect(seen.at(-1)?.limit).toBeUndefined();
    expect(seen.at(-1)?.continue).toBeUndefined();
  });

  it('backs off 800 ms → 30 s with jitter on repeated errors, and recovers', async () => {
    const { clock, cluster, reflector, errors } = setup();
    cluster.failNext('list', 500, 12);
    reflector.start();
    // 12 failures at most 30 s apart.
    for (let i = 0; i < 40 && !reflector.hasSynced(); i++) await clock.advanceAsync(30_000);
    expect(reflector.hasSynced()).toBe(true);
    const delays = errors.map((e) => e.info.retryInMs);
    expect(delays).toHaveLength(12);
    for (const d of delays) {
      expect(d).toBeGreaterThanOrEqual(800);
      expect(d).toBeLessThanOrEqual(30_000);
    }
    expect(delays[0]).toBeLessThanOrEqual(1600);
    // Exponential: the n-th base delay is 800·2^n; with jitter each delay is within [base, 2·base].
    for (let i = 0; i < 6; i++) expect(delays[i]).toBeGreaterThanOrEqual(Math.min(800 * 2 ** i, 30_000));
    expect(Math.max(...delays.slice(-3))).toBeGreaterThanOrEqual(25_600);
    expect(errors.every((e) => e.info.phase === 'Empty')).toBe(true);
    expect(cluster.requestCount('list')).toBe(13);
  });

  it('forgets past failures after 2 minutes of health', async () => {
    const { clock, cluster, reflector, errors } = setup();
    cluster.failNext('list', 500, 5);
    reflector.start();
    for (let i = 0; i < 10 && !reflector.hasSynced(); i++) await clock.advanceAsync(30_000);
    expect(reflector.hasSynced()).toBe(true);
    await clock.advanceAsync(121_000);
    cluster.failNext('watch', 500);
    cluster.dropWatches(new Error('reset'));
    await clock.advanceAsync(0);
    const last = errors.at(-1) as { info: ReflectorErrorInfo };
    expect(errors.at(-2)?.info.retryInMs).toBeGreaterThan(1600);
    expect(last.info.retryInMs).toBeLessThanOrEqual(1600);
  });

  it('never stops on its own: keeps retrying through a long outage of every verb', async () => {
    const { clock, cluster, reflector, errors, names } = setup();
    reflector.start();
    await clock.advanceAsync(0);
    const remove = cluster.addFault(() => new ApiError({ code: 503, message: 'down' }));
    cluster.dropWatches(new Error('reset'));
    await cluster.create(WidgetType, widget('during')).catch(() => undefined);
    for (let i = 0; i < 20; i++) await clock.advanceAsync(60_000);
    expect(errors.length).toBeGreaterThan(20);
    // At most one request per 800 ms even at the start, ~30 s later on: no hammering.
    expect(cluster.requestCount('watch')).toBeLessThan(60);
    remove();
    cluster.seed(WidgetType, widget('after'));
    await clock.advanceAsync(60_000);
    expect(names()).toEqual(['default/after']);
    expect(cluster.openWatches()).toBe(1);
  });

  it('backs off when watches end at once without events (a sick server), instead of hammering', async () => {
    const { clock, cluster, reflector, errors } = setup({
      transport: (c) =>
        new Proxy(c, {
          get(target, prop, receiver) {
            if (prop !== 'watch') return Reflect.get(target, prop, receiver);
            return async (...args: Parameters<FakeCluster['watch']>): Promise<WatchHandle> => {
              const handle = await target.watch(...args);
              handle.stop();
              return handle;
            };
          },
        }),
    });
    reflector.start();
    await clock.advanceAsync(60_000);
    expect(cluster.requestCount('watch')).toBeLessThan(12);
    expect(errors.length).toBeGreaterThan(3);
    expect(errors[0]?.error.message).toMatch(/without events/);
  });

  it('stop() ends the loop, closes the watch and sends nothing more', async () => {
    const { clock, cluster, reflector } = setup();
    reflector.start();
    await clock.advanceAsync(0);
    expect(cluster.openWatches()).toBe(1);
    await reflector.stop();
    expect(cluster.openWatches()).toBe(0);
    const before = cluster.requestCount();
    await clock.advanceAsync(3_600_000);
    expect(cluster.requestCount()).toBe(before);
  });

  it('stop() during a backoff resolves promptly', async () => {
    const { clock, cluster, reflector } = setup();
    cluster.failNext('list', 500, 100);
    reflector.start();
    await clock.advanceAsync(0);
    await reflector.stop();
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('Reflector stop', () => {
  it('stop() returns even when the transport never answers, and closes a watch that opens late', async () => {
    const clock = new ManualClock();
    const cluster = new FakeCluster({ clock, kinds: [WidgetType] });
    cluster.latencyMs = 10_000;
    const reflector = new Reflector<Widget>(cluster, WidgetType, {
      clock,
      watchList: false,
      onError: () => {},
    });
    reflector.start();
    await clock.advanceAsync(0);
    // The list is in flight and will not be answered before stop().
    await reflector.stop();
    expect(reflector.hasSynced()).toBe(false);
    await clock.advanceAsync(60_000);
    expect(cluster.requestCount('list')).toBe(1);
    expect(cluster.requestCount('watch')).toBe(0);
    expect(cluster.openWatches()).toBe(0);
  });
});

describe('Reflector with a selector', () => {
  it('treats objects leaving the selection as deletes and entering as adds', async () => {
    const clock = new ManualClock();
    const cluster = new FakeCluster({ clock, kinds: [WidgetType] });
    const changes: StoreChange<KubeObject>[] = [];
    const reflector = new Reflector<KubeObject>(cluster, WidgetType, {
      clock,
      labelSelector: 'app=web',
      onChange: (c) => changes.push(c),
    });
    reflector.start();
    await clock.advanceAsync(0);
    cluster.seed(WidgetType, widget('a'));
    await cluster.patch(WidgetType, key('a'), 'merge', { metadata: { labels: { app: 'web' } } });
    await cluster.patch(WidgetType, key('a'), 'merge', { metadata: { labels: { app: 'db' } } });
    await clock.advanceAsync(0);
    expect(changes.map((c) => c.type)).toEqual(['add', 'delete']);
    expect(reflector.store.size).toBe(0);
    await reflector.stop();
  });
});
