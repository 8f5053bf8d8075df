/**
 * The model-based test of the cache: random writes interleaved with every fault the fake cluster
 * can inject (dropped watches, compactions that force 410s, failing lists and watches, latency,
 * bookmarks). Once the faults stop and time passes, the cache must equal the server exactly, and
 * the handler's own picture, built only from the events it was given, must equal it too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { compactForCache } from '../../src/cache/compact.js';
import { SharedInformer, storeKey } from '../../src/cache/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { type Widget, Widget as WidgetType } from '../testing/fixtures.js';

type Op =
  | { kind: 'create'; ns: string; name: string; app: string; finalizer: boolean }
  | { kind: 'update'; ns: string; name: string; size: number; app: string }
  | { kind: 'status'; ns: string; name: string; observed: number }
  | { kind: 'delete'; ns: string; name: string }
  | { kind: 'unfinalize'; ns: string; name: string }
  | { kind: 'dropWatches'; withError: boolean }
  /** The watch breaks and re-watching fails for a while: changes pile up unseen. */
  | { kind: 'outage'; failures: number }
  | { kind: 'compact' }
  | { kind: 'failList'; code: number; count: number }
  | { kind: 'failWatch'; code: number; count: number }
  | { kind: 'latency'; ms: number }
  | { kind: 'bookmark' }
  | { kind: 'advance'; ms: number };

const ns = fc.constantFrom('ns1', 'ns2');
const name = fc.constantFrom('a', 'b', 'c', 'd', 'e');
const app = fc.constantFrom('web', 'db');
const code = fc.constantFrom(500, 503, 429, 403, 410);

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('create' as const), ns, name, app, finalizer: fc.boolean() }),
  },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('update' as const), ns, name, size: fc.nat(5), app }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('status' as const), ns, name, observed: fc.nat(5) }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('delete' as const), ns, name }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unfinalize' as const), ns, name }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('dropWatches' as const), withError: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('outage' as const), failures: fc.integer({ min: 1, max: 4 }) }),
  },
  { weight: 3, arbitrary: fc.constant({ kind: 'compact' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('failList' as const),
      code,
      count: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('failWatch' as const),
      code,
      count: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('latency' as const), ms: fc.constantFrom(0, 0, 5, 200) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'bookmark' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.constantFrom(0, 10, 500, 1000, 5000, 40_000, 700_000),
    }),
  },
);

async function apply(cluster: FakeCluster, o: Op): Promise<void> {
  const key = 'name' in o ? { namespace: o.ns, name: o.name } : { name: '' };
  try {
    switch (o.kind) {
      case 'create':
        await cluster.create(WidgetType, {
          metadata: {
            name: o.name,
            namespace: o.ns,
            labels: { app: o.app },
            ...(o.finalizer ? { finalizers: ['test/hold'] } : {}),
          },
          spec: { size: 0 },
        });
        return;
      case 'update':
        await cluster.patch(WidgetType, key, 'merge', {
          metadata: { labels: { app: o.app } },
          spec: { size: o.size },
        });
        return;
      case 'status':
        await cluster.patch(
          WidgetType,
          key,
          'merge',
          { status: { observed: o.observed } },
          { subresource: 'status' },
        );
        return;
      case 'delete':
        await cluster.delete(WidgetType, key);
        return;
      case 'unfinalize':
        await cluster.patch(WidgetType, key, 'merge', { metadata: { finalizers: null } });
        return;
      case 'dropWatches':
        cluster.dropWatches(o.withError ? new Error('connection reset by peer') : undefined);
        return;
      case 'outage':
        cluster.failNext('watch', 503, o.failures);
        cluster.dropWatches(new Error('connection reset by peer'));
        return;
      case 'compact':
        cluster.compact();
        return;
      case 'failList':
        cluster.failNext('list', o.code, o.count);
        return;
      case 'failWatch':
        cluster.failNext('watch', o.code, o.count);
        return;
      case 'latency':
        cluster.latencyMs = o.ms;
        return;
      case 'bookmark':
        cluster.sendBookmarks();
        return;
      case 'advance':
        return;
    }
  } catch (err) {
    // Writes fail for the usual reasons (NotFound, AlreadyExists) or injected faults: both fine.
    if (!(err instanceof ApiError)) throw err;
  }
}

const rv = (w: Widget) => Number(w.metadata.resourceVersion);

async function runScenario(ops: Op[], asyncHandler: boolean, seed: number) {
  const clock = new ManualClock();
  // Writes from the test never fail by injection: faults target only list and watch.
  const cluster = new FakeCluster({ clock, kinds: [WidgetType] });
  let state = seed >>> 0 || 1;
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const informer = new SharedInformer<Widget>(cluster, WidgetType, {
    clock,
    random,
    onError: () => {},
    pageSize: 2,
  });
  const violations: string[] = [];
  // The handler's picture of the world, built only from the events it receives.
  const view = new Map<string, Widget>();
  const pause = async () => {
    if (asyncHandler) await Promise.resolve();
  };
  informer.addEventHandler({
    onAdd: async (o) => {
      await pause();
      const k = storeKey(o);
      if (view.has(k)) violations.push(`add of known ${k}`);
      view.set(k, o);
    },
    onUpdate: async (old, o) => {
      await pause();
      const k = storeKey(o);
      if (view.get(k) !== old) violations.push(`update of ${k}: old is not the last object seen`);
      if (rv(o) <= rv(old)) violations.push(`update of ${k} goes back in time ${rv(old)} → ${rv(o)}`);
      view.set(k, o);
    },
    onDelete: async (o, { finalStateUnknown }) => {
      await pause();
      const k = storeKey(o);
      const last = view.get(k);
      if (!last) violations.push(`delete of unknown ${k}`);
      else if (!finalStateUnknown && rv(o) <= rv(last))
        violations.push(`delete of ${k} older than last seen`);
      view.delete(k);
    },
  });
  informer.start();

  for (const o of ops) {
    // Requests wait for latency on the virtual clock: move time until the write has been answered.
    let answered = false;
    const pending = apply(cluster, o).finally(() => {
      answered = true;
    });
    while (!answered) await clock.advanceAsync(50);
    await pending;
    await clock.advanceAsync(o.kind === 'advance' ? o.ms : 0);
  }

  // Heal: no more faults, no latency; let time pass until every backoff has run out.
  cluster.clearFaults();
  cluster.latencyMs = 0;
  const server = () => cluster.objects(WidgetType).map(compactForCache);
  const converged = () => {
    const want = server();
    return (
      informer.store.size === want.length &&
      want.every(
        (w) => informer.store.get(storeKey(w))?.metadata.resourceVersion === w.metadata.resourceVersion,
      )
    );
  };
  // Converged means: same objects, and watching again (not sleeping in a backoff).
  for (let i = 0; i < 10 && !(converged() && cluster.openWatches() === 1); i++)
    await clock.advanceAsync(31_000);
  await informer.drained();

  const want = server();
  const cached = informer.store.list().sort((a, b) => storeKey(a).localeCompare(storeKey(b)));
  expect(cached).toEqual(want);
  expect(informer.hasSynced()).toBe(true);
  expect([...view.values()].sort((a, b) => storeKey(a).localeCompare(storeKey(b)))).toEqual(want);
  // The handler holds the very instances the cache holds: no copies, no stale objects.
  for (const [k, o] of view) expect(informer.store.get(k)).toBe(o);
  expect(violations).toEqual([]);
  // Still watching, ready for what comes next.
  expect(cluster.openWatches()).toBe(1);
  await informer.stop();
}

describe('cache convergence (model-based)', () => {
  it('after any mix of writes and faults, cache and handler view converge to the server state', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 5, maxLength: 80, size: 'max' }),
        fc.boolean(),
        fc.integer(),
        runScenario,
      ),
      { numRuns: 400 },
    );
  }, 120_000);

  it('converges through a scenario with every fault at once', async () => {
    await runScenario(
      [
        { kind: 'create', ns: 'ns1', name: 'a', app: 'web', finalizer: true },
        { kind: 'create', ns: 'ns1', name: 'b', app: 'db', finalizer: false },
        { kind: 'advance', ms: 0 },
        { kind: 'failWatch', code: 503, count: 2 },
        { kind: 'dropWatches', withError: true },
        { kind: 'delete', ns: 'ns1', name: 'a' },
        { kind: 'delete', ns: 'ns1', name: 'b' },
        { kind: 'create', ns: 'ns2', name: 'b', app: 'web', finalizer: false },
        { kind: 'compact' },
        { kind: 'failList', code: 500, count: 3 },
        { kind: 'advance', ms: 5000 },
        { kind: 'unfinalize', ns: 'ns1', name: 'a' },
        { kind: 'latency', ms: 200 },
        { kind: 'dropWatches', withError: false },
        { kind: 'update', ns: 'ns2', name: 'b', size: 3, app: 'db' },
      ],
      true,
      7,
    );
  });
});
