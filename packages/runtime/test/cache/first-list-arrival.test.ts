/**
 * The first list is stored as it arrives: watch-list events and list pages reach the store and the
 * handlers while the server is still sending, and the reflector syncs once the list is complete.
 * A relist of a synced store still replaces it in one step. The in-memory cluster serves the
 * requests; each test holds back part of an answer to look at the store in between.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { apiError } from '../../src/api/errors.js';
import type { ListOptions, WatchEvent, WatchOptions } from '../../src/api/types.js';
import { Reflector, type StoreChange } from '../../src/cache/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import type { ApiTransport, WatchCallbacks } from '../../src/transport/transport.js';
import { type Widget, Widget as WidgetType, widget } from '../testing/fixtures.js';

const reflectors: Reflector<Widget>[] = [];
afterEach(async () => {
  await Promise.all(reflectors.splice(0).map((r) => r.stop()));
});

const isInitialEventsEnd = (event: WatchEvent<Widget>) =>
  event.type === 'BOOKMARK' && event.object.metadata?.annotations?.['k8s.io/initial-events-end'] === 'true';

/**
 * A cluster whose watch-list streams can be held back at the initial-events-end bookmark
 * (`hold`), and whose open watches can be cut (`cut`).
 */
function setup(options: { pageSize?: number } = {}) {
  const clock = new ManualClock();
  const cluster = new FakeCluster({ clock, kinds: [WidgetType] });
  const held: Array<() => void> = [];
  const open: Array<WatchCallbacks<Widget>> = [];
  const control = { hold: false, holdPages: false };
  const heldPages: Array<() => void> = [];
  const transport = Object.create(cluster) as FakeCluster;
  transport.watch = ((type, watchOptions: WatchOptions, callbacks: WatchCallbacks<Widget>) => {
    open.push(callbacks);
    return cluster.watch(type, watchOptions, {
      ...callbacks,
      onEvent: (event: WatchEvent<Widget>) => {
        if (control.hold && isInitialEventsEnd(event)) held.push(() => callbacks.onEvent(event));
        else callbacks.onEvent(event);
      },
    });
  }) as ApiTransport['watch'];
  transport.list = ((type, listOptions: ListOptions) => {
    const answer = cluster.list(type, listOptions);
    if (!control.holdPages || !listOptions.continue) return answer;
    return new Promise((resolve) => heldPages.push(() => resolve(answer)));
  }) as ApiTransport['list'];
  const changes: StoreChange<Widget>[] = [];
  const errors: Error[] = [];
  const reflector = new Reflector<Widget>(transport, WidgetType, {
    clock,
    pageSize: options.pageSize,
    onChange: (c) => changes.push(c),
    onError: (error) => errors.push(error),
    random: () => 0.5,
  });
  reflectors.push(reflector);
  const release = () => {
    for (const f of held.splice(0)) f();
  };
  const releasePages = () => {
    for (const f of heldPages.splice(0)) f();
  };
  const cut = () => {
    for (const callbacks of open.splice(0)) callbacks.onClose(new Error('connection reset'));
  };
  return { clock, cluster, reflector, changes, errors, control, release, releasePages, cut };
}

const named = (changes: StoreChange<Widget>[]) =>
  changes.map((c) => `${c.type}:${c.object.metadata.name}${c.type === 'add' && c.initialList ? '*' : ''}`);

describe('Reflector: the first list as it arrives', () => {
  it('stores watch-list objects before the bookmark, and syncs at it', async () => {
    const { clock, cluster, reflector, changes, control, release } = setup();
    control.hold = true;
    cluster.seed(WidgetType, widget('a'), widget('b'));
    reflector.start();
    await clock.advanceAsync(0);
    // Stored and handed out, but not a complete list yet.
    expect(reflector.store.keys().sort()).toEqual(['default/a', 'default/b']);
    expect(Object.isFrozen(reflector.store.get('default/a'))).toBe(true);
    expect(named(changes)).toEqual(['add:a*', 'add:b*']);
    expect(reflector.hasSynced()).toBe(false);
    expect(reflector.lastSyncResourceVersion()).toBe('');
    release();
    await clock.advanceAsync(0);
    expect(reflector.hasSynced()).toBe(true);
    expect(reflector.lastSyncResourceVersion()).toBe(cluster.currentResourceVersion());
    expect(named(changes)).toEqual(['add:a*', 'add:b*']); // nothing twice
    await cluster.create(WidgetType, widget('c'));
    await clock.advanceAsync(0);
    expect(named(changes)).toEqual(['add:a*', 'add:b*', 'add:c']);
  });

  it('a key twice in the streamed list: a changed copy replaces it (update), an equal one changes nothing', async () => {
    const { clock, cluster, reflector, changes, control, release } = setup();
    control.hold = true;
    cluster.seed(WidgetType, widget('a'), widget('b'));
    const watch = cluster.watch.bind(cluster);
    // Each initial ADDED sent twice: `a` as an equal copy, `b` as a copy of a later version.
    cluster.watch = ((type, options: WatchOptions, callbacks: WatchCallbacks<Widget>) =>
      watch(type, options, {
        ...callbacks,
        onEvent: (event: WatchEvent<Widget>) => {
          callbacks.onEvent(event);
          if (event.type !== 'ADDED' || isInitialEventsEnd(event)) return;
          const object = event.object;
          if (object.metadata.name === 'a') callbacks.onEvent({ type: 'ADDED', object: { ...object } });
          else
            callbacks.onEvent({
              type: 'ADDED',
              object: { ...object, metadata: { ...object.metadata, resourceVersion: '999' } },
            });
        },
      })) as ApiTransport['watch'];
    reflector.start();
    await clock.advanceAsync(0);
    release();
    await clock.advanceAsync(0);
    expect(reflector.hasSynced()).toBe(true);
    expect(named(changes)).toEqual(['add:a*', 'add:b*', 'update:b']);
    const firstA = (changes[0] as { object: Widget }).object;
    expect(reflector.store.get('default/a')).toBe(firstA);
    expect(reflector.store.get('default/b')?.metadata.resourceVersion).toBe('999');
    expect(reflector.store.keys().sort()).toEqual(['default/a', 'default/b']);
  });

  it('after a first list cut short, the next one leaves exactly the server objects', async () => {
    const { clock, cluster, reflector, changes, control, release, cut, errors } = setup();
    control.hold = true;
    cluster.seed(WidgetType, widget('a'), widget('b'));
    reflector.start();
    await clock.advanceAsync(0);
    expect(reflector.store.size).toBe(2);
    cut(); // before the bookmark
    await clock.advanceAsync(0);
    expect(errors[0]?.message).toMatch(/before the initial-events-end bookmark/);
    expect(reflector.hasSynced()).toBe(false);
    // Meanwhile on the server: a goes, c comes, b changes.
    await cluster.delete(WidgetType, { namespace: 'default', name: 'a' });
    await cluster.create(WidgetType, widget('c'));
    const b = await cluster.get(WidgetType, { namespace: 'default', name: 'b' });
    await cluster.update(WidgetType, { ...b, spec: { size: 9 } });
    control.hold = false;
    release();
    await clock.advanceAsync(2_000); // the backoff (800 ms, jittered)
    expect(reflector.hasSynced()).toBe(true);
    expect(reflector.store.keys().sort()).toEqual(['default/b', 'default/c']);
    expect(reflector.store.get('default/b')?.spec?.size).toBe(9);
    expect(named(changes)).toEqual(['add:a*', 'add:b*', 'add:c*', 'update:b', 'delete:a']);
    const deleted = changes.at(-1);
    expect(deleted?.type === 'delete' && deleted.finalStateUnknown).toBe(true);
  });

  it('a relist after the sync still replaces the store at once', async () => {
    const { clock, cluster, reflector, changes, control, release } = setup();
    cluster.seed(WidgetType, widget('keep'), widget('vanish'));
    reflector.start();
    await clock.advanceAsync(0);
    expect(reflector.hasSynced()).toBe(true);
    changes.length = 0;
    control.hold = true;
    // The watch breaks and its retry fails; what changes meanwhile is compacted away: 410, relist.
    cluster.dropWatches(new Error('connection reset'));
    cluster.failNext('watch', 503);
    await cluster.delete(WidgetType, { namespace: 'default', name: 'vanish' });
    await cluster.create(WidgetType, widget('new'));
    cluster.compact();
    await clock.advanceAsync(30_000);
    // The relist's objects have come, its bookmark not: the store is still the old list.
    expect(reflector.store.keys().sort()).toEqual(['default/keep', 'default/vanish']);
    expect(changes).toEqual([]);
    release();
    await clock.advanceAsync(0);
    expect(reflector.store.keys().sort()).toEqual(['default/keep', 'default/new']);
    expect(named(changes).sort()).toEqual(['add:new', 'delete:vanish']);
  });

  it('stores each page of a paginated first list as it comes', async () => {
    const { clock, cluster, reflector, changes, control, releasePages } = setup({ pageSize: 2 });
    cluster.addFault((r) =>
      r.verb === 'watch' && (r.options as WatchOptions).sendInitialEvents
        ? apiError(422, 'Invalid', 'sendInitialEvents: Forbidden')
        : undefined,
    );
    control.holdPages = true;
    cluster.seed(WidgetType, widget('a'), widget('b'), widget('c'));
    reflector.start();
    await clock.advanceAsync(0);
    expect(reflector.store.keys().sort()).toEqual(['default/a', 'default/b']);
    expect(reflector.hasSynced()).toBe(false);
    releasePages();
    await clock.advanceAsync(0);
    expect(reflector.hasSynced()).toBe(true);
    expect(reflector.store.keys().sort()).toEqual(['default/a', 'default/b', 'default/c']);
    expect(named(changes)).toEqual(['add:a*', 'add:b*', 'add:c*']);
  });
});
