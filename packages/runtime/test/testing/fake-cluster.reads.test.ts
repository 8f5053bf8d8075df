import { describe, expect, it } from 'vitest';
import { ApiError, isGone } from '../../src/api/errors.js';
import type { KubeObject } from '../../src/api/types.js';
import { flushMicrotasks } from '../../src/testing/index.js';
import { recordWatch, rejection, setup } from './cluster-kit.js';
import { ConfigMap, Widget as WidgetType, widget } from './fixtures.js';

describe('FakeCluster list', () => {
  it('filters by namespace, label and field selectors', async () => {
    const { cluster } = setup();
    await cluster.create(
      WidgetType,
      widget('a', 'ns1', { metadata: { name: 'a', namespace: 'ns1', labels: { app: 'web' } } }),
    );
    await cluster.create(
      WidgetType,
      widget('b', 'ns1', { metadata: { name: 'b', namespace: 'ns1', labels: { app: 'db' } } }),
    );
    await cluster.create(
      WidgetType,
      widget('c', 'ns2', { metadata: { name: 'c', namespace: 'ns2', labels: { app: 'web' } } }),
    );
    const names = (r: { items: KubeObject[] }) =>
      r.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    expect(names(await cluster.list(WidgetType, { namespace: 'ns1' }))).toEqual(['ns1/a', 'ns1/b']);
    expect(names(await cluster.list(WidgetType, { labelSelector: 'app=web' }))).toEqual(['ns1/a', 'ns2/c']);
    expect(names(await cluster.list(WidgetType, { labelSelector: 'app in (db)', namespace: 'ns1' }))).toEqual(
      ['ns1/b'],
    );
    expect(names(await cluster.list(WidgetType, { fieldSelector: 'metadata.name!=a' }))).toEqual([
      'ns1/b',
      'ns2/c',
    ]);
    expect((await rejection(cluster.list(WidgetType, { labelSelector: 'app in (' }))).code).toBe(400);
  });

  it('paginates with limit/continue from a consistent snapshot', async () => {
    const { cluster } = setup();
    for (let i = 0; i < 5; i++) await cluster.create(WidgetType, widget(`w${i}`));
    const p1 = await cluster.list(WidgetType, { limit: 2 });
    expect(p1.items.map((o) => o.metadata.name)).toEqual(['w0', 'w1']);
    expect(p1.continue).toBeDefined();
    // Changes after the first page do not show in later pages.
    await cluster.delete(WidgetType, { namespace: 'default', name: 'w3' });
    await cluster.create(WidgetType, widget('w9'));
    const p2 = await cluster.list(WidgetType, { limit: 2, continue: p1.continue as string });
    const p3 = await cluster.list(WidgetType, { limit: 2, continue: p2.continue as string });
    expect([...p2.items, ...p3.items].map((o) => o.metadata.name)).toEqual(['w2', 'w3', 'w4']);
    expect(p3.continue).toBeUndefined();
    expect(p2.resourceVersion).toBe(p1.resourceVersion);
  });

  it('expires continue tokens older than a compaction with 410', async () => {
    const { cluster } = setup();
    for (let i = 0; i < 3; i++) await cluster.create(WidgetType, widget(`w${i}`));
    const p1 = await cluster.list(WidgetType, { limit: 1 });
    await cluster.create(WidgetType, widget('later'));
    cluster.compact();
    expect(
      isGone(await rejection(cluster.list(WidgetType, { limit: 1, continue: p1.continue as string }))),
    ).toBe(true);
  });
});

describe('FakeCluster watch', () => {
  it('replays history after a resourceVersion, then streams live events in order', async () => {
    const { cluster } = setup();
    const start = cluster.currentResourceVersion();
    await cluster.create(WidgetType, widget('a'));
    await cluster.patch(WidgetType, { namespace: 'default', name: 'a' }, 'merge', { spec: { size: 2 } });
    const w = recordWatch();
    await cluster.watch(WidgetType, { resourceVersion: start }, w.callbacks);
    await cluster.create(WidgetType, widget('b'));
    await cluster.delete(WidgetType, { namespace: 'default', name: 'a' });
    await flushMicrotasks();
    expect(
      w.events.map((e) => (e.type === 'ERROR' ? 'ERROR' : `${e.type}:${e.object.metadata.name}`)),
    ).toEqual(['ADDED:a', 'MODIFIED:a', 'ADDED:b', 'DELETED:a']);
  });

  it('delivers asynchronously', async () => {
    const { cluster } = setup();
    const w = recordWatch();
    await cluster.watch(WidgetType, { resourceVersion: cluster.currentResourceVersion() }, w.callbacks);
    cluster.seed(WidgetType, widget('a'));
    expect(w.events).toHaveLength(0);
    await flushMicrotasks();
    expect(w.events).toHaveLength(1);
  });

  it('sends synthetic ADDED events for the current state when watching from RV 0 or unset', async () => {
    const { cluster } = setup();
    cluster.seed(WidgetType, widget('a'), widget('b'));
    const w = recordWatch();
    await cluster.watch(WidgetType, { resourceVersion: '0' }, w.callbacks);
    await flushMicrotasks();
    expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'ADDED']);
  });

  it('answers an ERROR 410 event and a clean close after a compaction', async () => {
    const { cluster } = setup();
    const old = cluster.currentResourceVersion();
    await cluster.create(WidgetType, widget('a'));
    cluster.compact();
    const w = recordWatch();
    await cluster.watch(WidgetType, { resourceVersion: old }, w.callbacks);
    await flushMicrotasks();
    expect(w.events).toEqual([
      { type: 'ERROR', status: expect.objectContaining({ code: 410, reason: 'Expired' }) },
    ]);
    expect(w.closes).toEqual([undefined]);
    // Watching from the compaction point itself is still fine.
    const ok = recordWatch();
    await cluster.watch(WidgetType, { resourceVersion: cluster.currentResourceVersion() }, ok.callbacks);
    await flushMicrotasks();
    expect(ok.events).toHaveLength(0);
    expect(cluster.openWatches()).toBe(1);
  });

  it('with sendInitialEvents, sends the current state then a bookmark marking its end', async () => {
    const { cluster } = setup();
    cluster.seed(WidgetType, widget('a'));
    const rv = cluster.currentResourceVersion();
    const w = recordWatch();
    await cluster.watch(
      WidgetType,
      {
        resourceVersion: rv,
        sendInitialEvents: true,
        resourceVersionMatch: 'NotOlderThan',
        allowWatchBookmarks: true,
      },
      w.callbacks,
    );
    await flushMicrotasks();
    expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK']);
    const bookmark = w.events[1] as { object: KubeObject };
    expect(bookmark.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
  });

  it('turns selector transitions into ADDED/DELETED', async () => {
    const { cluster } = setup();
    const w = recordWatch();
    await cluster.watch(
      WidgetType,
      { resourceVersion: cluster.currentResourceVersion(), labelSelector: 'app=web' },
      w.callbacks,
    );
    const key = { namespace: 'default', name: 'a' };
    await cluster.create(WidgetType, widget('a'));
    await cluster.patch(WidgetType, key, 'merge', { metadata: { labels: { app: 'web' } } });
    await cluster.patch(WidgetType, key, 'merge', { spec: { size: 3 } });
    await cluster.patch(WidgetType, key, 'merge', { metadata: { labels: { app: 'db' } } });
    await flushMicrotasks();
    expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
  });

  it('sends bookmarks only to watches that allow them', async () => {
    const { cluster } = setup();
    const yes = recordWatch();
    const no = recordWatch();
    await cluster.watch(
      WidgetType,
      { resourceVersion: cluster.currentResourceVersion(), allowWatchBookmarks: true },
      yes.callbacks,
    );
    await cluster.watch(WidgetType, { resourceVersion: cluster.currentResourceVersion() }, no.callbacks);
    cluster.seed(ConfigMap, { metadata: { name: 'c', namespace: 'default' } });
    cluster.sendBookmarks();
    await flushMicrotasks();
    expect(yes.events).toEqual([
      {
        type: 'BOOKMARK',
        object: expect.objectContaining({ metadata: { resourceVersion: cluster.currentResourceVersion() } }),
      },
    ]);
    expect(no.events).toHaveLength(0);
  });

  it('ends a watch cleanly after timeoutSeconds on the clock, and on stop()', async () => {
    const { clock, cluster } = setup();
    const w = recordWatch();
    const handle = await cluster.watch(
      WidgetType,
      { resourceVersion: cluster.currentResourceVersion(), timeoutSeconds: 60 },
      w.callbacks,
    );
    await clock.advanceAsync(59_000);
    expect(w.closes).toHaveLength(0);
    await clock.advanceAsync(1_000);
    expect(w.closes).toEqual([undefined]);
    handle.stop();
    await flushMicrotasks();
    expect(w.closes).toHaveLength(1);
  });
});

describe('FakeCluster faults', () => {
  it('failNext fails the next requests of a verb, then recovers', async () => {
    const { cluster } = setup();
    cluster.failNext('list', 500, 2);
    expect((await rejection(cluster.list(WidgetType))).code).toBe(500);
    expect((await rejection(cluster.list(WidgetType))).reason).toBe('InternalError');
    await expect(cluster.list(WidgetType)).resolves.toBeDefined();
    expect(cluster.requestCount('list')).toBe(3);
  });

  it('fault hooks see every request and can be removed', async () => {
    const { cluster } = setup();
    const remove = cluster.addFault((r) =>
      r.verb === 'create' && r.key?.name === 'bad' ? new ApiError({ code: 403, message: 'no' }) : undefined,
    );
    expect((await rejection(cluster.create(WidgetType, widget('bad')))).code).toBe(403);
    await cluster.create(WidgetType, widget('good'));
    remove();
    await cluster.create(WidgetType, widget('bad'));
  });

  it('dropWatches closes every open watch, cleanly or with an error', async () => {
    const { cluster } = setup();
    const a = recordWatch();
    const b = recordWatch();
    await cluster.watch(WidgetType, {}, a.callbacks);
    expect(cluster.dropWatches()).toBe(1);
    await cluster.watch(WidgetType, {}, b.callbacks);
    const boom = new Error('connection reset');
    cluster.dropWatches(boom);
    await flushMicrotasks();
    expect(a.closes).toEqual([undefined]);
    expect(b.closes).toEqual([boom]);
    expect(cluster.openWatches()).toBe(0);
  });

  it('serves requests after latencyMs on the clock', async () => {
    const { clock, cluster } = setup();
    cluster.latencyMs = 250;
    let done = false;
    const p = cluster.list(WidgetType).then(() => {
      done = true;
    });
    await clock.advanceAsync(249);
    expect(done).toBe(false);
    await clock.advanceAsync(1);
    await p;
    expect(done).toBe(true);
  });
});
