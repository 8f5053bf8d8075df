import { afterEach, describe, expect, it } from 'vitest';
import { CacheSyncError, SharedInformer } from '../../src/cache/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { type Widget, Widget as WidgetType, widget } from '../testing/fixtures.js';

const informers: SharedInformer<Widget>[] = [];
afterEach(async () => {
  await Promise.all(informers.splice(0).map((i) => i.stop()));
});

function setup(options: { resyncPeriodMs?: number } = {}) {
  const clock = new ManualClock();
  const cluster = new FakeCluster({ clock, kinds: [WidgetType] });
  const informer = new SharedInformer<Widget>(cluster, WidgetType, {
    clock,
    onError: () => {},
    random: () => 0.5,
    ...options,
  });
  informers.push(informer);
  return { clock, cluster, informer };
}

function recorder(log: string[], tag = '') {
  return {
    onAdd: (o: Widget) => void log.push(`${tag}add:${o.metadata.name}`),
    onUpdate: (old: Widget, o: Widget) =>
      void log.push(`${tag}update:${o.metadata.name}${old === o ? '=' : ''}`),
    onDelete: (o: Widget, i: { finalStateUnknown: boolean }) =>
      void log.push(`${tag}delete:${o.metadata.name}${i.finalStateUnknown ? '?' : ''}`),
  };
}

describe('SharedInformer', () => {
  it('tells handlers which adds were in the initial list (or the replay) and which are new', async () => {
    const { clock, cluster, informer } = setup();
    const early: string[] = [];
    const late: string[] = [];
    const tagged = (log: string[]) => ({
      onAdd: (o: Widget, info: { initialList: boolean }) =>
        void log.push(`${o.metadata.name}:${info.initialList ? 'initial' : 'new'}`),
    });
    informer.addEventHandler(tagged(early));
    cluster.seed(WidgetType, widget('a'), widget('b'));
    informer.start();
    await informer.waitForSync(1000);
    await cluster.create(WidgetType, widget('c'));
    await clock.advanceAsync(0);
    informer.addEventHandler(tagged(late));
    await cluster.create(WidgetType, widget('d'));
    await clock.advanceAsync(0);
    expect(early).toEqual(['a:initial', 'b:initial', 'c:new', 'd:new']);
    expect(late).toEqual(['a:initial', 'b:initial', 'c:initial', 'd:new']);
  });

  it('delivers adds, updates and deletes to every handler, in order', async () => {
    const { clock, cluster, informer } = setup();
    const a: string[] = [];
    const b: string[] = [];
    informer.addEventHandler(recorder(a));
    informer.addEventHandler(recorder(b));
    cluster.seed(WidgetType, widget('x'));
    informer.start();
    await informer.waitForSync(1000);
    await cluster.patch(WidgetType, { namespace: 'default', name: 'x' }, 'merge', { spec: { size: 5 } });
    await cluster.delete(WidgetType, { namespace: 'default', name: 'x' });
    await clock.advanceAsync(0);
    expect(a).toEqual(['add:x', 'update:x', 'delete:x']);
    expect(b).toEqual(a);
  });

  it('replays the cache as adds to a handler registered late, then streams live changes', async () => {
    const { clock, cluster, informer } = setup();
    cluster.seed(WidgetType, widget('a'), widget('b'));
    informer.start();
    await clock.advanceAsync(0);
    const log: string[] = [];
    const reg = informer.addEventHandler(recorder(log));
    expect(reg.hasSynced()).toBe(true);
    await cluster.create(WidgetType, widget('c'));
    await clock.advanceAsync(0);
    expect(log).toEqual(['add:a', 'add:b', 'add:c']);
  });

  it('awaits async handlers one change at a time, so a slow handler never reorders events', async () => {
    const { clock, cluster, informer } = setup();
    const log: string[] = [];
    const fast: string[] = [];
    let inFlight = 0;
    informer.addEventHandler({
      onAdd: async (o) => {
        inFlight++;
        expect(inFlight).toBe(1);
        // The first object is slow to handle.
        await new Promise<void>((r) => clock.setTimeout(r, o.metadata.name === 'a' ? 5000 : 10));
        log.push(`add:${o.metadata.name}`);
        inFlight--;
      },
      onUpdate: async (_old, o) => {
        log.push(`update:${o.metadata.name}`);
      },
    });
    informer.addEventHandler(recorder(fast));
    informer.start();
    await clock.advanceAsync(0);
    await cluster.create(WidgetType, widget('a'));
    await cluster.create(WidgetType, widget('b'));
    await cluster.patch(WidgetType, { namespace: 'default', name: 'a' }, 'merge', { spec: { size: 3 } });
    await clock.advanceAsync(0);
    // The other handler is not held back by the slow one.
    expect(fast).toEqual(['add:a', 'add:b', 'update:a']);
    expect(log).toEqual([]);
    await clock.advanceAsync(6000);
    await informer.drained();
    expect(log).toEqual(['add:a', 'add:b', 'update:a']);
  });

  it('a throwing handler is reported and does not stop delivery', async () => {
    const clock = new ManualClock();
    const cluster = new FakeCluster({ clock, kinds: [WidgetType] });
    const failures: unknown[] = [];
    const informer = new SharedInformer<Widget>(cluster, WidgetType, {
      clock,
      onHandlerError: (e) => failures.push(e),
    });
    informers.push(informer);
    const log: string[] = [];
    informer.addEventHandler({
      onAdd: (o) => {
        if (o.metadata.name === 'bad') throw new Error('boom');
        log.push(o.metadata.name as string);
      },
    });
    informer.start();
    await clock.advanceAsync(0);
    await cluster.create(WidgetType, widget('bad'));
    await cluster.create(WidgetType, widget('good'));
    await clock.advanceAsync(0);
    expect(log).toEqual(['good']);
    expect(failures).toHaveLength(1);
  });

  it('resyncs periodically with old === new, and not at all by default', async () => {
    const { clock, cluster, informer } = setup({ resyncPeriodMs: 60_000 });
    const log: string[] = [];
    informer.addEventHandler(recorder(log));
    cluster.seed(WidgetType, widget('a'));
    informer.start();
    await clock.advanceAsync(0);
    await clock.advanceAsync(60_000);
    expect(log).toEqual(['add:a', 'update:a=']);

    const quiet = setup();
    const qlog: string[] = [];
    quiet.informer.addEventHandler(recorder(qlog));
    quiet.informer.start();
    await quiet.clock.advanceAsync(3_600_000);
    expect(qlog).toEqual([]);
  });

  it('removed handlers receive nothing more', async () => {
    const { clock, cluster, informer } = setup();
    const log: string[] = [];
    const reg = informer.addEventHandler(recorder(log));
    informer.start();
    await clock.advanceAsync(0);
    reg.remove();
    await cluster.create(WidgetType, widget('a'));
    await clock.advanceAsync(0);
    expect(log).toEqual([]);
  });

  it('waitForSync rejects with CacheSyncError after the timeout, and on abort', async () => {
    const { clock, cluster, informer } = setup();
    // Neither a watch-list nor a list ever succeeds.
    cluster.failNext('watch', 500, 1000);
    cluster.failNext('list', 500, 1000);
    informer.start();
    const wait = informer.waitForSync(5000);
    const outcome = wait.then(
      () => 'synced',
      (e) => e,
    );
    await clock.advanceAsync(5000);
    const err = await outcome;
    expect(err).toBeInstanceOf(CacheSyncError);
    expect((err as Error).message).toMatch(/widgets.*5000/);
    const ac = new AbortController();
    const aborted = informer.waitForSync(60_000, ac.signal).catch((e) => e);
    ac.abort();
    expect(await aborted).toBeInstanceOf(CacheSyncError);
  });

  it('registration.hasSynced waits until the handler processed the initial list', async () => {
    const { clock, cluster, informer } = setup();
    cluster.seed(WidgetType, widget('a'), widget('b'));
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const reg = informer.addEventHandler({ onAdd: () => gate });
    informer.start();
    await clock.advanceAsync(0);
    expect(informer.hasSynced()).toBe(true);
    expect(reg.hasSynced()).toBe(false);
    release();
    await informer.drained();
    expect(reg.hasSynced()).toBe(true);
  });
});
