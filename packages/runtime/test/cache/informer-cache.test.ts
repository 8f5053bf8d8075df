import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/types.js';
import { CacheSyncError, InformerCache } from '../../src/cache/index.js';
import type { CachedReader } from '../../src/client/cached-reader.js';
import { Client } from '../../src/client/client.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { Node, type Widget, Widget as WidgetType, widget } from '../testing/fixtures.js';

const caches: InformerCache[] = [];
afterEach(async () => {
  await Promise.all(caches.splice(0).map((c) => c.stop()));
});

function setup() {
  const clock = new ManualClock();
  const cluster = new FakeCluster({ clock, kinds: [WidgetType, Node] });
  const cache = new InformerCache(cluster, { clock, onError: () => {} });
  caches.push(cache);
  return { clock, cluster, cache };
}

const labelled = (name: string, namespace: string, app: string): Widget =>
  widget(name, namespace, { metadata: { name, namespace, labels: { app } } });

describe('InformerCache', () => {
  it('shares one informer per (kind, restriction)', () => {
    const { cache } = setup();
    const a = cache.informerFor(WidgetType);
    expect(cache.informerFor(WidgetType)).toBe(a);
    expect(cache.informerFor(WidgetType, { labelSelector: ' app=web ' })).toBe(
      cache.informerFor(WidgetType, { labelSelector: 'app=web' }),
    );
    expect(cache.informerFor(WidgetType, { namespace: 'ns1' })).not.toBe(a);
  });

  it('serves get and list (namespace, label selector) from the cache once synced', async () => {
    const { clock, cluster, cache } = setup();
    cluster.seed(
      WidgetType,
      labelled('a', 'ns1', 'web'),
      labelled('b', 'ns1', 'db'),
      labelled('c', 'ns2', 'web'),
    );
    cluster.seed(Node, { metadata: { name: 'n1' } });
    cache.informerFor(WidgetType);
    cache.informerFor(Node);
    cache.start();
    const sync = cache.waitForCacheSync(10_000);
    await clock.advanceAsync(0);
    await sync;
    const reader: CachedReader = cache;
    expect(reader.isCached(WidgetType)).toBe(true);
    expect(reader.get<Widget>(WidgetType, { namespace: 'ns1', name: 'a' })?.metadata.labels).toEqual({
      app: 'web',
    });
    expect(reader.get(WidgetType, { namespace: 'ns2', name: 'a' })).toBeUndefined();
    expect(reader.get(Node, { name: 'n1' })?.metadata.name).toBe('n1');
    const names = (os: KubeObject[]) =>
      os.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort();
    expect(names(reader.list(WidgetType))).toEqual(['ns1/a', 'ns1/b', 'ns2/c']);
    expect(names(reader.list(WidgetType, { namespace: 'ns1' }))).toEqual(['ns1/a', 'ns1/b']);
    expect(names(reader.list(WidgetType, { labelSelector: 'app=web' }))).toEqual(['ns1/a', 'ns2/c']);
    expect(names(reader.list(WidgetType, { namespace: 'ns2', labelSelector: 'app=web' }))).toEqual(['ns2/c']);
    // Objects are shared and frozen.
    const a = reader.get<Widget>(WidgetType, { namespace: 'ns1', name: 'a' }) as Widget;
    expect(() => {
      (a.spec as { size: number }).size = 100;
    }).toThrow(TypeError);
  });

  it('is not cached for kinds without an informer, or only with selector-restricted ones', () => {
    const { cache } = setup();
    expect(cache.isCached(WidgetType)).toBe(false);
    expect(cache.holds(WidgetType)).toBe(false);
    cache.informerFor(WidgetType, { labelSelector: 'app=web' });
    expect(cache.isCached(WidgetType)).toBe(false);
    // Held in a selection: the client keeps its writes of it for the lists that selection serves.
    expect(cache.holds(WidgetType)).toBe(true);
    expect(cache.list(WidgetType, { labelSelector: 'app=db' })).toEqual([]);
  });

  it('serves a list with exactly an informer selector from that informer', async () => {
    const { clock, cluster, cache } = setup();
    cluster.seed(WidgetType, labelled('a', 'ns1', 'web'), labelled('b', 'ns1', 'db'));
    const inf = cache.informerFor(WidgetType, { labelSelector: 'app=web' });
    cache.start();
    await clock.advanceAsync(0);
    expect(inf.store.size).toBe(1);
    expect(cache.list(WidgetType, { labelSelector: 'app=web' }).map((o) => o.metadata.name)).toEqual(['a']);
    // The client lists it from there too (a controller's selected watch is its cache), and asks the
    // server only for what that informer does not hold whole.
    expect(cache.holdsList(WidgetType, { labelSelector: 'app=web' })).toBe(true);
    expect(cache.holdsList(WidgetType, { labelSelector: 'app=db' })).toBe(false);
    const client = new Client(cluster, { cache });
    const lists = cluster.requestCount('list');
    expect(
      (await client.list(WidgetType, { labelSelector: 'app=web' })).items.map((o) => o.metadata.name),
    ).toEqual(['a']);
    expect(cluster.requestCount('list')).toBe(lists);
    expect(
      (await client.list(WidgetType, { labelSelector: 'app=db' })).items.map((o) => o.metadata.name),
    ).toEqual(['b']);
    expect((await client.list(WidgetType, { labelSelector: 'app=web', direct: true })).items).toHaveLength(1);
    expect(cluster.requestCount('list')).toBe(lists + 2);
  });

  it('namespace-restricted informers serve their namespace only', async () => {
    const { clock, cluster, cache } = setup();
    cluster.seed(WidgetType, labelled('a', 'ns1', 'web'), labelled('c', 'ns2', 'web'));
    cache.informerFor(WidgetType, { namespace: 'ns1' });
    cache.start();
    await clock.advanceAsync(0);
    expect(cache.get(WidgetType, { namespace: 'ns1', name: 'a' })).toBeDefined();
    expect(cache.get(WidgetType, { namespace: 'ns2', name: 'c' })).toBeUndefined();
    expect(cache.list(WidgetType, { namespace: 'ns1' })).toHaveLength(1);
  });

  it('indexField indexes existing and future informers; listByIndex queries it', async () => {
    const { clock, cluster, cache } = setup();
    cluster.seed(
      WidgetType,
      widget('a', 'ns1', { spec: { color: 'red' } }),
      widget('b', 'ns2', { spec: { color: 'red' } }),
      widget('c', 'ns1', { spec: { color: 'blue' } }),
    );
    cache.indexField<Widget>(WidgetType, 'spec.color', (w) => (w.spec?.color ? [w.spec.color] : []));
    cache.informerFor(WidgetType);
    cache.start();
    await clock.advanceAsync(0);
    expect(
      cache
        .listByIndex(WidgetType, 'spec.color', 'red')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(
      cache.listByIndex(WidgetType, 'spec.color', 'red', { namespace: 'ns2' }).map((o) => o.metadata.name),
    ).toEqual(['b']);
    await cluster.patch(WidgetType, { namespace: 'ns1', name: 'c' }, 'merge', { spec: { color: 'red' } });
    await clock.advanceAsync(0);
    expect(cache.listByIndex(WidgetType, 'spec.color', 'red')).toHaveLength(3);
    expect(() => cache.indexField(WidgetType, 'spec.color', () => [])).toThrow(/already exists/);
  });

  it('informers created after start() start at once', async () => {
    const { clock, cluster, cache } = setup();
    cache.start();
    cluster.seed(WidgetType, widget('a'));
    cache.informerFor(WidgetType);
    await clock.advanceAsync(0);
    expect(cache.hasSynced()).toBe(true);
    expect(cache.list(WidgetType)).toHaveLength(1);
  });

  it('waitForCacheSync fails loudly, naming the informers that did not sync', async () => {
    const { clock, cluster, cache } = setup();
    cluster.seed(Node, { metadata: { name: 'n1' } });
    cache.informerFor(Node);
    cache.informerFor(WidgetType, { namespace: 'stuck' });
    cluster.addFault((r) =>
      (r.verb === 'list' || r.verb === 'watch') && r.type.plural === 'widgets'
        ? new Error('forbidden')
        : undefined,
    );
    cache.start();
    const result = cache.waitForCacheSync(2000).catch((e) => e);
    await clock.advanceAsync(2000);
    const err = await result;
    expect(err).toBeInstanceOf(CacheSyncError);
    expect((err as Error).message).toContain('widgets (namespace=stuck)');
    expect((err as Error).message).not.toContain('nodes');
  });
});
