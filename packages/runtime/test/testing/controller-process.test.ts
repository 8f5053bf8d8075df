import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import type { KubeObject, WatchEvent } from '../../src/api/types.js';
import { ConfigMap } from '../../src/client/index.js';
import {
  ControllerProcess,
  type Held,
  mergeHeld,
  ProcessCrashed,
} from '../../src/testing/conformance/controller-process.js';
import { FakeCluster, flushMicrotasks, ManualClock } from '../../src/testing/index.js';

const cm = (name: string, v = '1'): ConfigMap => ({ metadata: { name, namespace: 'ns' }, data: { v } });

function setUp() {
  const cluster = new FakeCluster({ clock: new ManualClock(), kinds: [ConfigMap] });
  const writes: string[] = [];
  let deaths = 0;
  const process = new ControllerProcess(
    cluster,
    (w) => writes.push(`${w.verb} ${w.key?.name}`),
    () => deaths++,
  );
  return { cluster, process, writes, deaths: () => deaths };
}

function recordWatch(process: ControllerProcess) {
  const events: string[] = [];
  const closes: Array<Error | undefined> = [];
  const handle = process.watch(
    ConfigMap,
    { namespace: 'ns' },
    {
      onEvent: (e) =>
        events.push(
          e.type === 'ERROR'
            ? `ERROR ${e.status.code}`
            : `${e.type} ${e.object.metadata.name} ${(e.object as ConfigMap).data?.v ?? ''}`.trim(),
        ),
      onClose: (err) => closes.push(err),
    },
  );
  return { events, closes, handle };
}

describe('ControllerProcess: one run of the operator process over the fake cluster', () => {
  it('dies as a chosen write is committed: the server acted, the caller gets no answer, nothing more passes', async () => {
    const { cluster, process, writes, deaths } = setUp();
    await process.create(ConfigMap, cm('a'));
    process.crashAfterWrites(1);
    await expect(process.create(ConfigMap, cm('b'))).rejects.toBeInstanceOf(ProcessCrashed);
    expect(cluster.getObject(ConfigMap, { namespace: 'ns', name: 'b' })).toBeDefined();
    expect(writes).toEqual(['create a', 'create b']);
    expect(deaths()).toBe(1);
    await expect(process.get(ConfigMap, { namespace: 'ns', name: 'a' })).rejects.toBeInstanceOf(
      ProcessCrashed,
    );
    expect(cluster.requestCount('get')).toBe(0);
  });

  it('answers the nth call of a verb with the injected error, and only that call', async () => {
    const { process } = setUp();
    await process.create(ConfigMap, cm('a'));
    const key = { namespace: 'ns', name: 'a' };
    process.inject('get', 2, 500);
    process.inject('patch', 1, 429);
    await expect(process.get(ConfigMap, key)).resolves.toBeDefined();
    await expect(process.get(ConfigMap, key)).rejects.toMatchObject({ code: 500 });
    await expect(process.get(ConfigMap, key)).resolves.toBeDefined();
    const throttled = await process
      .patch(ConfigMap, key, 'merge', { data: { v: '2' } })
      .catch((e: unknown) => e);
    expect(throttled).toBeInstanceOf(ApiError);
    expect((throttled as ApiError).retryAfterSeconds).toBe(2);
  });

  it('a timeout hides the answer of a write the server did', async () => {
    const { cluster, process } = setUp();
    process.inject('create', 1, 'timeout');
    await expect(process.create(ConfigMap, cm('a'))).rejects.toThrow(/timed out/);
    expect(cluster.getObject(ConfigMap, { namespace: 'ns', name: 'a' })?.data).toEqual({ v: '1' });
  });

  it('holds watch events while stale, then delivers them, merges them, or loses them behind a 410', async () => {
    const { cluster, process } = setUp();
    const w = recordWatch(process);
    await w.handle;
    const client = (v: string) => cluster.update(ConfigMap, { ...cm('a', v) });
    await cluster.create(ConfigMap, cm('a'));
    await flushMicrotasks();
    expect(w.events).toEqual(['ADDED a 1']);

    process.startStale();
    await client('2');
    await client('3');
    await flushMicrotasks();
    expect(w.events).toEqual(['ADDED a 1']);
    process.endStale('merge');
    expect(w.events).toEqual(['ADDED a 1', 'MODIFIED a 3']);

    process.startStale();
    await client('4');
    await flushMicrotasks();
    process.endStale('deliver');
    expect(w.events.at(-1)).toBe('MODIFIED a 4');

    process.startStale();
    await client('5');
    await flushMicrotasks();
    process.endStale('lose');
    expect(w.events.slice(-1)).toEqual(['ERROR 410']);
    expect(w.closes).toEqual([undefined]);
  });
});

const event = (type: 'ADDED' | 'MODIFIED' | 'DELETED', name: string, v: number): WatchEvent<KubeObject> => ({
  type,
  object: { metadata: { name, namespace: 'ns', resourceVersion: String(v) } },
});

describe('mergeHeld: what a cache sees of events it got late, merged', () => {
  const held = fc.array(
    fc.oneof(
      fc.record({
        type: fc.constantFrom('ADDED' as const, 'MODIFIED' as const, 'DELETED' as const),
        name: fc.constantFrom('a', 'b', 'c'),
      }),
      fc.constant('close' as const),
    ),
    { maxLength: 20 },
  );

  it('keeps, in order, the last event of each object and every close', () => {
    fc.assert(
      fc.property(held, (spec) => {
        const input: Held[] = spec.map((s, i) =>
          s === 'close' ? { close: undefined } : event(s.type, s.name, i),
        );
        const out = mergeHeld(input);
        // A subsequence of the input, in order.
        let j = 0;
        for (const e of out) {
          while (input[j] !== e) j++;
          expect(j).toBeLessThan(input.length);
        }
        const names = (l: typeof input) =>
          l.flatMap((e) => ('close' in e || e.type === 'ERROR' ? [] : [e.object.metadata.name]));
        expect(new Set(names(out))).toEqual(new Set(names(input)));
        expect(names(out).length).toBe(new Set(names(input)).size);
        for (const name of new Set(names(input))) {
          const last = input
            .filter((e) => !('close' in e) && e.type !== 'ERROR' && e.object.metadata.name === name)
            .at(-1);
          expect(out).toContain(last);
        }
        expect(out.filter((e) => 'close' in e).length).toBe(input.filter((e) => 'close' in e).length);
      }),
    );
  });
});

describe('ControllerProcess: a stale window over lists and watch-lists', () => {
  it('answers lists and watch-lists at the revision the window began, then the changes since once it ends', async () => {
    const { cluster, process } = setUp();
    await cluster.create(ConfigMap, cm('a'));
    process.startStale();
    await cluster.update(ConfigMap, cm('a', '2'));
    await cluster.create(ConfigMap, cm('b'));
    // A list the server may answer from its watch cache is stale; a consistent read is not.
    const listed = await process.list(ConfigMap, { namespace: 'ns', resourceVersion: '0' });
    expect(listed.items.map((o) => `${o.metadata.name} ${o.data?.v}`)).toEqual(['a 1']);
    const consistent = await process.list(ConfigMap, { namespace: 'ns' });
    expect(consistent.items.map((o) => `${o.metadata.name} ${o.data?.v}`)).toEqual(['a 2', 'b 1']);
    const events: string[] = [];
    const handle = await process.watch(
      ConfigMap,
      {
        namespace: 'ns',
        sendInitialEvents: true,
        allowWatchBookmarks: true,
        resourceVersionMatch: 'NotOlderThan',
      },
      {
        onEvent: (e) =>
          events.push(
            e.type === 'ERROR'
              ? 'ERROR'
              : `${e.type} ${e.object.metadata.name ?? ''} ${(e.object as ConfigMap).data?.v ?? ''}`.trim(),
          ),
        onClose: () => events.push('closed'),
      },
    );
    await flushMicrotasks();
    expect(events).toEqual(['ADDED a 1', 'BOOKMARK']);
    process.endStale('deliver');
    expect(events).toEqual(['ADDED a 1', 'BOOKMARK', 'MODIFIED a 2', 'ADDED b 1']);
    expect((await process.list(ConfigMap, { namespace: 'ns' })).items).toHaveLength(2);
    handle.stop();
  });
});
