import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/testing/manual-clock.js';
import {
  type GetResult,
  noopWorkQueueMetrics,
  WorkQueue,
  type WorkQueueMetrics,
} from '../../src/workqueue/index.js';

/** Hands out every queued key, in order. */
async function takeAll(q: WorkQueue): Promise<string[]> {
  const keys: string[] = [];
  while (q.len() > 0) {
    const r = await q.get();
    if (!r.shutdown) keys.push(r.key);
  }
  return keys;
}

/** Lets pending promise callbacks run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

function keyOf(r: GetResult<string>): string {
  if (r.shutdown) throw new Error('unexpected shutdown');
  return r.key;
}

function recordingMetrics() {
  const log: string[] = [];
  const metrics: WorkQueueMetrics = {
    onDepth: (d) => log.push(`depth ${d}`),
    onAdd: () => log.push('add'),
    onQueueLatency: (s) => log.push(`latency ${s}`),
    onWorkDuration: (s) => log.push(`work ${s}`),
    onRetry: () => log.push('retry'),
  };
  return { log, metrics };
}

describe('WorkQueue', () => {
  it('hands keys out in the order they were first added', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.add('c');
    expect(q.len()).toBe(3);
    expect(keyOf(await q.get())).toBe('a');
    expect(keyOf(await q.get())).toBe('b');
    expect(keyOf(await q.get())).toBe('c');
    expect(q.len()).toBe(0);
  });

  it('collapses duplicate adds of a pending key', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(2);
    expect(keyOf(await q.get())).toBe('a');
    expect(keyOf(await q.get())).toBe('b');
    expect(q.len()).toBe(0);
  });

  it('does not hand out a key being processed; re-queues it on done', async () => {
    const q = new WorkQueue();
    q.add('a');
    expect(keyOf(await q.get())).toBe('a');
    q.add('a');
    q.add('a');
    // Marked dirty, not queued: a second worker must not get it.
    expect(q.len()).toBe(0);
    let second: GetResult<string> | undefined;
    void q.get().then((r) => {
      second = r;
    });
    await flush();
    expect(second).toBeUndefined();
    q.done('a');
    await flush();
    expect(second).toEqual({ key: 'a', shutdown: false });
  });

  it('does not re-queue a key on done when it was not added again', async () => {
    const q = new WorkQueue();
    q.add('a');
    await q.get();
    q.done('a');
    expect(q.len()).toBe(0);
  });

  it('get waits for an add', async () => {
    const q = new WorkQueue();
    let got: GetResult<string> | undefined;
    void q.get().then((r) => {
      got = r;
    });
    await flush();
    expect(got).toBeUndefined();
    q.add('x');
    await flush();
    expect(got).toEqual({ key: 'x', shutdown: false });
    expect(q.len()).toBe(0);
  });

  it('serves several waiting workers one key each', async () => {
    const q = new WorkQueue();
    const gets = [q.get(), q.get(), q.get()];
    q.add('a');
    q.add('b');
    q.add('a');
    q.add('c');
    const keys = (await Promise.all(gets)).map(keyOf);
    expect(keys).toEqual(['a', 'b', 'c']);
  });

  it('ignores done for a key that is not being processed', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.done('a');
    expect(q.len()).toBe(1);
    expect(keyOf(await q.get())).toBe('a');
  });

  it('after shutDown: ignores adds, drains what is queued, then reports shutdown', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.shutDown();
    expect(q.shuttingDown()).toBe(true);
    q.add('c');
    expect(q.len()).toBe(2);
    expect(keyOf(await q.get())).toBe('a');
    expect(keyOf(await q.get())).toBe('b');
    expect(await q.get()).toEqual({ shutdown: true });
  });

  it('wakes idle workers on shutDown', async () => {
    const q = new WorkQueue();
    const gets = [q.get(), q.get()];
    q.shutDown();
    expect(await Promise.all(gets)).toEqual([{ shutdown: true }, { shutdown: true }]);
  });

  it('still re-queues a key that was dirty at shutdown when its worker finishes', async () => {
    const q = new WorkQueue();
    q.add('a');
    await q.get();
    q.add('a');
    q.shutDown();
    q.done('a');
    expect(q.len()).toBe(1);
    expect(keyOf(await q.get())).toBe('a');
  });

  it('shutDownWithDrain resolves only after every processing key is done', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    await q.get();
    await q.get();
    let drained = false;
    void q.shutDownWithDrain().then(() => {
      drained = true;
    });
    await flush();
    expect(drained).toBe(false);
    q.done('a');
    await flush();
    expect(drained).toBe(false);
    q.done('b');
    await flush();
    expect(drained).toBe(true);
  });

  it('shutDownWithDrain resolves at once when nothing is processing', async () => {
    const q = new WorkQueue();
    q.add('a');
    await expect(q.shutDownWithDrain()).resolves.toBeUndefined();
  });

  it('shutDown releases a pending shutDownWithDrain', async () => {
    const q = new WorkQueue();
    q.add('a');
    await q.get();
    let drained = false;
    void q.shutDownWithDrain().then(() => {
      drained = true;
    });
    await flush();
    expect(drained).toBe(false);
    q.shutDown();
    await flush();
    expect(drained).toBe(true);
  });

  it('rejects a waiting get when its signal aborts, without losing the next key', async () => {
    const q = new WorkQueue();
    const ac = new AbortController();
    const aborted = q.get(ac.signal);
    ac.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    q.add('a');
    expect(q.len()).toBe(1);
    expect(keyOf(await q.get())).toBe('a');
  });

  it('rejects get with an already aborted signal when the queue is empty', async () => {
    const q = new WorkQueue();
    await expect(q.get(AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });

  it('reports depth, adds, queue latency and work duration on its clock', async () => {
    const clock = new ManualClock();
    const { log, metrics } = recordingMetrics();
    const q = new WorkQueue({ name: 'test', clock, metrics });
    expect(q.name).toBe('test');
    q.add('a');
    q.add('a');
    clock.advance(1500);
    await q.get();
    clock.advance(250);
    q.done('a');
    expect(log).toEqual(['add', 'depth 1', 'depth 0', 'latency 1.5', 'work 0.25']);
  });

  it('measures queue latency from when a processing key was added again', async () => {
    const clock = new ManualClock();
    const { log, metrics } = recordingMetrics();
    const q = new WorkQueue({ clock, metrics });
    q.add('a');
    await q.get();
    clock.advance(100);
    q.add('a');
    clock.advance(300);
    q.done('a');
    clock.advance(200);
    await q.get();
    expect(log.filter((l) => l.startsWith('latency'))).toEqual(['latency 0', 'latency 0.5']);
  });

  it('reports unfinished work: total and longest running', async () => {
    const clock = new ManualClock();
    // A queue times its work when it reports metrics (any sink but the no-op default).
    const q = new WorkQueue({ clock, metrics: { ...noopWorkQueueMetrics } });
    expect(q.unfinishedWork()).toEqual({ totalSeconds: 0, longestSeconds: 0 });
    q.add('a');
    q.add('b');
    await q.get();
    clock.advance(2000);
    await q.get();
    clock.advance(1000);
    expect(q.unfinishedWork()).toEqual({ totalSeconds: 4, longestSeconds: 3 });
    q.done('a');
    expect(q.unfinishedWork()).toEqual({ totalSeconds: 1, longestSeconds: 1 });
  });

  it('does not time its work without metrics: unfinished work reads zero', async () => {
    const clock = new ManualClock();
    const q = new WorkQueue({ clock });
    q.add('a');
    await q.get();
    clock.advance(2000);
    expect(q.unfinishedWork()).toEqual({ totalSeconds: 0, longestSeconds: 0 });
  });

  it('explains queued and processing keys, with reasons, and forgets them when done', async () => {
    const clock = new ManualClock(0);
    const q = new WorkQueue({ clock });
    q.add('a', 'create');
    clock.advance(10);
    q.add('b', 'update');
    await q.get();
    clock.advance(5);
    q.add('a', 'status changed');
    expect(q.snapshot()).toEqual([
      { key: 'a', state: 'processing', rerun: true, reason: 'status changed', lastAddedAt: 15, failures: 0 },
      { key: 'b', state: 'queued', rerun: false, reason: 'update', lastAddedAt: 10, failures: 0 },
    ]);
    q.done('a');
    expect(q.explain('a')).toMatchObject({ state: 'queued', rerun: false });
    await q.get();
    await q.get();
    q.done('a');
    q.done('b');
    expect(q.snapshot()).toEqual([]);
    expect(q.explain('a')).toBeUndefined();
  });

  describe('priorities with aging', () => {
    it('runs a fresh edit before a queued initial list, and the list afterwards in order', async () => {
      const clock = new ManualClock(0);
      const q = new WorkQueue({ clock });
      for (const k of ['cm-1', 'cm-2', 'cm-3']) q.add(k, 'initial list', 'low');
      q.add('edited', 'update event');
      expect(q.explain('cm-1')).toMatchObject({ state: 'queued', priority: 'low' });
      expect(q.explain('edited')).not.toHaveProperty('priority');
      const order: string[] = [];
      for (let i = 0; i < 4; i++) {
        const r = await q.get();
        if (!r.shutdown) order.push(r.key);
      }
      expect(order).toEqual(['edited', 'cm-1', 'cm-2', 'cm-3']);
    });

    it('a normal add promotes a queued low key, and a low add never demotes', async () => {
      const q = new WorkQueue({ clock: new ManualClock(0) });
      q.add('a', undefined, 'low');
      q.add('b', undefined, 'low');
      q.add('c');
      q.add('b'); // promoted behind c
      q.add('c', undefined, 'low'); // stays normal
      const order = await takeAll(q);
      expect(order).toEqual(['c', 'b', 'a']);
    });

    it('re-queues a key added again while processing with the priority of that add', async () => {
      const q = new WorkQueue({ clock: new ManualClock(0) });
      q.add('a');
      await q.get();
      q.add('a', 'resync', 'low');
      q.add('b', undefined, 'low');
      q.add('c');
      q.done('a'); // a goes back as low, behind b
      expect(q.explain('a')).toMatchObject({ state: 'queued', priority: 'low' });
      const order = await takeAll(q);
      expect(order).toEqual(['c', 'b', 'a']);
    });

    it('lets aged low keys alternate with normal ones', async () => {
      const clock = new ManualClock(0);
      const q = new WorkQueue({ clock, lowPriorityAgingMs: 100 });
      q.add('low-1', undefined, 'low');
      q.add('low-2', undefined, 'low');
      clock.advance(99);
      q.add('n-1');
      q.add('n-2');
      q.add('n-3');
      const first = await q.get();
      expect(first).toEqual({ key: 'n-1', shutdown: false }); // not aged yet
      clock.advance(1);
      const order = await takeAll(q);
      expect(order).toEqual(['low-1', 'n-2', 'low-2', 'n-3']);
    });

    it('refuses a negative aging time', () => {
      expect(() => new WorkQueue({ lowPriorityAgingMs: -1 })).toThrow(RangeError);
    });
  });
});
