/** The ledger of own writes: never older than what was written, the cache's once it caught up. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject, ObjectKey } from '../../src/api/types.js';
import type { CachedReader } from '../../src/client/cached-reader.js';
import { ConfigMap } from '../../src/client/index.js';
import { OwnWrites, olderResourceVersion } from '../../src/client/own-writes.js';
import { ManualClock } from '../../src/testing/index.js';

/** A cache of one kind that the test moves by hand. */
class HandCache implements CachedReader {
  readonly objects = new Map<string, KubeObject>();
  isCached(): boolean {
    return true;
  }
  get<T extends KubeObject>(_type: unknown, key: ObjectKey): T | undefined {
    return this.objects.get(`${key.namespace}/${key.name}`) as T | undefined;
  }
  list<T extends KubeObject>(): T[] {
    return [...this.objects.values()] as T[];
  }
}

/** A cache that holds the kind only in a selected informer: lists, but no read by key. */
class SelectedCache extends HandCache {
  override isCached(): boolean {
    return false;
  }
  holds(): boolean {
    return true;
  }
  override get<T extends KubeObject>(): T | undefined {
    return undefined;
  }
}

const cm = (name: string, rv: number, uid = 'u1'): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'ns', name, resourceVersion: String(rv), uid },
  data: { rv: String(rv) },
});

/** Steps: the server (and we) write object `a`'s next version; or the cache's watch delivers one. */
const writesAndDeliveries = fc.array(fc.constantFrom('write' as const, 'deliver' as const), {
  maxLength: 30,
});

/** Plays `steps` on object `a` (at version 1 first), checking after each with the versions so far. */
function replay(
  steps: readonly ('write' | 'deliver')[],
  cache: HandCache,
  writes: OwnWrites,
  check: (delivered: number, lastWrite: number) => void,
): void {
  let server = 1;
  let delivered = 1;
  let lastWrite = 0;
  cache.objects.set('ns/a', cm('a', 1));
  for (const s of steps) {
    if (s === 'write') {
      server++;
      lastWrite = server;
      writes.written(ConfigMap, cm('a', server));
    } else if (delivered < server) {
      delivered++;
      cache.objects.set('ns/a', cm('a', delivered));
    }
    check(delivered, lastWrite);
  }
}

describe('olderResourceVersion', () => {
  it('orders decimal resourceVersions as numbers, whatever their length', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        (a, b) => {
          expect(olderResourceVersion(String(a), String(b))).toBe(a < b);
        },
      ),
    );
  });
});

describe('OwnWrites', () => {
  it('a write that removed the last finalizer of a deleted object deleted it: it is listed no more', () => {
    const cache = new HandCache();
    const own = new OwnWrites(cache, new ManualClock());
    const doomed = { ...cm('a', 5), metadata: { ...cm('a', 5).metadata, finalizers: ['f'] } };
    cache.objects.set('ns/a', doomed);
    // The server's answer to the finalizer's removal: its last state, being deleted, no finalizer.
    own.written(ConfigMap, { ...cm('a', 6), metadata: { ...cm('a', 6).metadata, deletionTimestamp: 'now' } });
    expect(own.list(ConfigMap, cache.list(), {})).toEqual([]);
    expect(own.get(ConfigMap, { namespace: 'ns', name: 'a' }, doomed)).toBeUndefined();
    cache.objects.delete('ns/a');
    expect(own.list(ConfigMap, cache.list(), {})).toEqual([]);
    expect(own.pending).toBe(0);
  });

  it('a read is never older than the last write, and is the cache’s once it caught up', () => {
    fc.assert(
      fc.property(writesAndDeliveries, (steps) => {
        const cache = new HandCache();
        const writes = new OwnWrites(cache, new ManualClock());
        const key = { namespace: 'ns', name: 'a' };
        replay(steps, cache, writes, (delivered, lastWrite) => {
          const read = writes.get(ConfigMap, key, cache.get(ConfigMap, key)) as ConfigMap;
          const rv = Number(read.metadata.resourceVersion);
          expect(rv).toBeGreaterThanOrEqual(lastWrite);
          expect(rv).toBe(Math.max(delivered, lastWrite));
        });
      }),
    );
  });

  it('a list from a selected informer is never older than our write, and settles by that copy', () => {
    fc.assert(
      fc.property(writesAndDeliveries, (steps) => {
        const cache = new SelectedCache();
        const writes = new OwnWrites(cache, new ManualClock());
        replay(steps, cache, writes, (delivered, lastWrite) => {
          const listed = writes.list(ConfigMap, cache.list(), { namespace: 'ns' });
          expect(listed.map((o) => Number(o.metadata.resourceVersion))).toEqual([
            Math.max(delivered, lastWrite),
          ]);
          // Once the informer shows our last write, the ledger holds nothing for it.
          expect(writes.pending).toBe(delivered >= lastWrite ? 0 : 1);
        });
      }),
    );
  });

  it('a delete of a kind held only in a selection stays hidden through a sweep, until the list drops it', () => {
    const cache = new SelectedCache();
    const writes = new OwnWrites(cache, new ManualClock());
    cache.objects.set('ns/a', cm('a', 1));
    writes.deleted(ConfigMap, { namespace: 'ns', name: 'a' }, 'u1');
    // Enough other writes to sweep the ledger: no read by key may judge the delete seen.
    for (let i = 0; i < 300; i++) {
      const other = cm(`w${i}`, 2);
      writes.written(ConfigMap, { ...other, metadata: { ...other.metadata, namespace: 'other' } });
    }
    expect(writes.list(ConfigMap, [cm('a', 1)], { namespace: 'ns' })).toEqual([]);
    expect(writes.list(ConfigMap, [], { namespace: 'ns' })).toEqual([]);
    expect(writes.list(ConfigMap, [cm('a', 1)], { namespace: 'ns' })).toHaveLength(1);
  });

  it('a selected list ahead of the unselected informer keeps our write for reads by key', () => {
    const cache = new HandCache();
    const writes = new OwnWrites(cache, new ManualClock());
    const key = { namespace: 'ns', name: 'a' };
    cache.objects.set('ns/a', cm('a', 1));
    writes.written(ConfigMap, cm('a', 2));
    // The selected informer shows a newer copy than ours; the unselected one is still at 1.
    expect(writes.list(ConfigMap, [cm('a', 3)], { namespace: 'ns' })[0]?.metadata.resourceVersion).toBe('3');
    expect(writes.get(ConfigMap, key, cache.get(ConfigMap, key))?.metadata.resourceVersion).toBe('2');
    cache.objects.set('ns/a', cm('a', 3));
    writes.list(ConfigMap, [cm('a', 3)], { namespace: 'ns' });
    expect(writes.pending).toBe(0);
  });

  it('keeps nothing for a kind no informer holds', () => {
    const cache = new SelectedCache();
    cache.holds = () => false;
    const writes = new OwnWrites(cache, new ManualClock());
    writes.written(ConfigMap, cm('a', 2));
    writes.deleted(ConfigMap, { namespace: 'ns', name: 'b' }, 'u1');
    expect(writes.pending).toBe(0);
  });

  it('shows a delete until the cache drops the object, and forgets writes after its TTL', () => {
    const clock = new ManualClock();
    const cache = new HandCache();
    const writes = new OwnWrites(cache, clock, 1_000);
    const key = { namespace: 'ns', name: 'a' };
    cache.objects.set('ns/a', cm('a', 5));
    writes.deleted(ConfigMap, key, 'u1');
    expect(writes.get(ConfigMap, key, cache.get(ConfigMap, key))).toBeUndefined();
    expect(writes.list(ConfigMap, cache.list(), {})).toEqual([]);
    // Re-created by someone else (another uid): theirs shows.
    cache.objects.set('ns/a', cm('a', 9, 'u2'));
    expect(writes.get(ConfigMap, key, cache.get(ConfigMap, key))?.metadata.uid).toBe('u2');
    expect(writes.pending).toBe(0);
    // A write overtaken unseen (the cache never shows it) is let go after the TTL.
    writes.written(ConfigMap, cm('b', 20));
    expect(writes.get(ConfigMap, { namespace: 'ns', name: 'b' }, undefined)?.metadata.resourceVersion).toBe(
      '20',
    );
    clock.advance(1_001);
    expect(writes.get(ConfigMap, { namespace: 'ns', name: 'b' }, undefined)).toBeUndefined();
  });

  it('lists our creates that match the selection, and drops ours that left it', () => {
    const clock = new ManualClock();
    const cache = new HandCache();
    const writes = new OwnWrites(cache, clock);
    cache.objects.set('ns/old', {
      ...cm('old', 1),
      metadata: { ...cm('old', 1).metadata, labels: { app: 'x' } },
    });
    writes.written(ConfigMap, {
      ...cm('new', 2),
      metadata: { ...cm('new', 2).metadata, labels: { app: 'x' } },
    });
    writes.written(ConfigMap, {
      ...cm('old', 3),
      metadata: { ...cm('old', 3).metadata, labels: { app: 'y' } },
    });
    const names = writes
      .list(ConfigMap, cache.list(), { namespace: 'ns', labelSelector: 'app=x' })
      .map((o) => o.metadata.name);
    expect(names).toEqual(['new']);
  });
});
