/**
 * A Listener delivers one handler's changes one at a time, in push order: at once while the handler
 * is synchronous, through an async drain from the first change whose handler returns a promise.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/types.js';
import { Listener } from '../../src/cache/listener.js';
import type { StoreChange } from '../../src/cache/reflector.js';
import { flushMicrotasks } from '../../src/testing/index.js';

const object = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Widget', metadata: { name } });
const add = (name: string): StoreChange<KubeObject> => ({ type: 'add', object: object(name) });

describe('Listener', () => {
  it('delivers to a synchronous handler before push returns, and is idle after', async () => {
    const seen: string[] = [];
    const listener = new Listener({ onAdd: (o) => void seen.push(o.metadata.name ?? '') }, () => {});
    listener.push(add('a'));
    expect(seen).toEqual(['a']);
    listener.markSyncPoint();
    expect(listener.hasSynced()).toBe(true);
    await listener.idle();
  });

  it('delivers a change pushed from inside the handler after the handler returns, not nested in it', () => {
    const log: string[] = [];
    let listener: Listener<KubeObject> | undefined;
    listener = new Listener(
      {
        onAdd: (o) => {
          const name = o.metadata.name ?? '';
          log.push(`begin ${name}`);
          if (name === 'a') listener?.push(add('b'));
          log.push(`end ${name}`);
        },
      },
      () => {},
    );
    listener.push(add('a'));
    expect(log).toEqual(['begin a', 'end a', 'begin b', 'end b']);
  });

  it('holds later changes while an async handler runs, then delivers them in order', async () => {
    const log: string[] = [];
    let release: () => void = () => {};
    const listener = new Listener(
      {
        onAdd: (o) => {
          const name = o.metadata.name ?? '';
          log.push(name);
          if (name === 'slow') return new Promise<void>((resolve) => (release = resolve));
        },
      },
      () => {},
    );
    listener.push(add('slow'));
    listener.push(add('b'));
    listener.push(add('c'));
    listener.markSyncPoint();
    await flushMicrotasks();
    expect(log).toEqual(['slow']);
    expect(listener.hasSynced()).toBe(false);
    let idle = false;
    void listener.idle().then(() => (idle = true));
    release();
    await flushMicrotasks();
    expect(log).toEqual(['slow', 'b', 'c']);
    expect(idle).toBe(true);
    expect(listener.hasSynced()).toBe(true);
    // Idle again: the next change is delivered at once.
    listener.push(add('d'));
    expect(log).toEqual(['slow', 'b', 'c', 'd']);
  });

  it('reports a throw and a rejection, and goes on with the next change', async () => {
    const errors: string[] = [];
    const seen: string[] = [];
    const listener = new Listener(
      {
        onAdd: (o) => {
          const name = o.metadata.name ?? '';
          seen.push(name);
          if (name === 'throws') throw new Error('thrown');
          if (name === 'rejects') return Promise.reject(new Error('rejected'));
        },
      },
      (error, change) => errors.push(`${(error as Error).message} by ${change.object.metadata.name}`),
    );
    for (const name of ['throws', 'a', 'rejects', 'b']) listener.push(add(name));
    listener.markSyncPoint();
    await listener.idle();
    expect(seen).toEqual(['throws', 'a', 'rejects', 'b']);
    expect(errors).toEqual(['thrown by throws', 'rejected by rejects']);
    expect(listener.hasSynced()).toBe(true);
  });

  it('drops what was not delivered once removed', async () => {
    const seen: string[] = [];
    let release: () => void = () => {};
    const listener = new Listener(
      {
        onAdd: (o) => {
          seen.push(o.metadata.name ?? '');
          if (seen.length === 1) return new Promise<void>((resolve) => (release = resolve));
        },
      },
      () => {},
    );
    listener.push(add('a'));
    listener.push(add('b'));
    listener.remove();
    listener.push(add('c'));
    release();
    await listener.idle();
    await flushMicrotasks();
    expect(seen).toEqual(['a']);
  });

  it('for any mix of synchronous and async handling: push order, one at a time, every change counted', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Per change: handled synchronously (-1) or after that many microtask turns.
        fc.array(fc.integer({ min: -1, max: 3 }), { minLength: 1, maxLength: 30 }),
        async (delays) => {
          const pushed = delays.length;
          const nested = pushed; // pushed by change 0's handler, from inside it
          const plan = [...delays, -1]; // a copy: fast-check reuses the array while shrinking
          const delivered: number[] = [];
          let inFlight = 0;
          let overlap = false;
          let listener: Listener<KubeObject> | undefined;
          listener = new Listener(
            {
              onAdd: (o) => {
                const i = Number(o.metadata.name);
                if (inFlight > 0) overlap = true;
                delivered.push(i);
                if (i === 0) listener?.push(add(String(nested)));
                const delay = plan[i] as number;
                if (delay < 0) return;
                inFlight++;
                return (async () => {
                  for (let t = 0; t < delay; t++) await Promise.resolve();
                  inFlight--;
                })();
              },
            },
            () => {},
          );
          for (let i = 0; i < pushed; i++) listener.push(add(String(i)));
          listener.markSyncPoint();
          await listener.idle();
          // The nested change was pushed while 0 was delivered, before 1: it comes right after 0.
          const others = Array.from({ length: pushed - 1 }, (_, i) => i + 1);
          expect(delivered).toEqual([0, nested, ...others]);
          expect(overlap).toBe(false);
          expect(listener.hasSynced()).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
