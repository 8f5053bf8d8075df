import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Fifo } from '../../src/workqueue/fifo.js';
import { KeyTable } from '../../src/workqueue/key-table.js';

/** One key through the table: added, handed out, finished and released, as the queue does. */
function cycle(table: KeyTable<string>, key: string, now: number): void {
  table.add(key, undefined, 'normal', now);
  const entry = table.take(now);
  if (entry.key !== key) throw new Error(`took ${entry.key}, expected ${key}`);
  const finished = table.finish(key);
  if (finished) table.release(finished);
}

describe('Fifo', () => {
  it('property: hands items out in the order they went in, across growth and wrap-around', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.nat(1000), fc.constant(-1)), { maxLength: 400 }), (ops) => {
        const fifo = new Fifo<number>();
        const model: number[] = [];
        for (const op of ops) {
          if (op < 0) expect(fifo.shift()).toBe(model.shift());
          else {
            fifo.push(op);
            model.push(op);
          }
          expect(fifo.length).toBe(model.length);
          expect(fifo.peek()).toBe(model[0]);
        }
        expect([...fifo]).toEqual(model);
      }),
    );
  });
});

describe('KeyTable parking', () => {
  it('keeps a released key parked, invisible, and reuses it when the key comes back', () => {
    const table = new KeyTable<string>(5_000);
    cycle(table, 'ns/a', 1);
    expect(table.get('ns/a')).toBeUndefined();
    expect(table.held).toBe(1);
    expect(table.add('ns/a', 'again', 'low', 2)).toBe('queued');
    expect(table.get('ns/a')).toMatchObject({ dirty: true, queued: 'low', reason: 'again', lastAddAt: 2 });
    expect(table.held).toBe(1);
  });

  it('drops keys that stay released: distinct keys without end hold at most two periods', () => {
    const table = new KeyTable<string>(5_000);
    let most = 0;
    for (let i = 0; i < 100_000; i++) {
      cycle(table, `ns/obj-${i}`, i);
      most = Math.max(most, table.held);
    }
    expect(most).toBeLessThanOrEqual(2 * 16_384 + 1);
    expect(table.processing).toBe(0);
    expect(table.queued).toBe(0);
  });

  it('keeps every key of a working set that keeps coming back, and sweeps none of them', () => {
    const table = new KeyTable<string>(5_000);
    const keys = Array.from({ length: 10_000 }, (_, i) => `ns/obj-${i}`);
    let least = Number.POSITIVE_INFINITY;
    for (let round = 0; round < 10; round++) {
      // As the bench drives the queue: every key added, then each handed out and finished.
      for (const key of keys) table.add(key, undefined, 'normal', round);
      for (const key of keys) {
        table.take(round);
        table.release(table.finish(key) as NonNullable<ReturnType<KeyTable<string>['finish']>>);
        least = Math.min(least, table.held);
      }
    }
    expect(least).toBe(keys.length);
  });
});

describe('KeyTable keys in work', () => {
  it('property: the keys in work are exactly those taken and not yet finished, in any finish order', () => {
    // Ops: a number adds that key (then takes whatever is queued); -n finishes the n-th key in work.
    const op = fc.oneof(fc.integer({ min: 0, max: 30 }), fc.integer({ min: -30, max: -1 }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const table = new KeyTable<string>(5_000);
        const model = new Set<string>();
        for (const [now, n] of ops.entries()) {
          if (n >= 0) {
            table.add(`ns/k-${n}`, undefined, 'normal', now);
            if (table.queued > 0) model.add(table.take(now).key);
          } else if (model.size > 0) {
            const key = [...model][-n % model.size] as string;
            const entry = table.finish(key);
            expect(entry?.key).toBe(key);
            model.delete(key);
            if (entry?.dirty) table.requeue(entry, now);
            else if (entry) table.release(entry);
          }
          expect(table.processing).toBe(model.size);
          expect(new Set([...table.processingEntries()].map(([key]) => key))).toEqual(model);
          for (const [key, entry] of table.processingEntries())
            expect(entry.key === key && entry.processing).toBe(true);
        }
      }),
    );
  });
});
