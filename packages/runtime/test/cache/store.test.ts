import { describe, expect, it } from 'vitest';
import type { UnstructuredObject } from '../../src/api/types.js';
import { Store, storeKey } from '../../src/cache/index.js';

const obj = (
  name: string,
  rv: string,
  extra: Partial<UnstructuredObject> = {},
  namespace: string | null = 'ns',
): UnstructuredObject => ({
  metadata: { name, ...(namespace ? { namespace } : {}), resourceVersion: rv, ...(extra.metadata ?? {}) },
  ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'metadata')),
});

describe('Store', () => {
  it('keys by namespace/name, or name for cluster-scoped objects', () => {
    const store = new Store();
    store.upsert(obj('a', '1'));
    store.upsert(obj('n1', '1', {}, null));
    expect(store.keys().sort()).toEqual(['n1', 'ns/a']);
    expect(storeKey('ns', 'a')).toBe('ns/a');
    expect(storeKey(undefined, 'n1')).toBe('n1');
  });

  it('returns frozen objects: mutation throws and leaves the cache intact', () => {
    const store = new Store();
    store.upsert(obj('a', '1', { spec: { list: [1, 2], nested: { x: 1 } } }));
    const cached = store.get('ns/a') as UnstructuredObject & {
      spec: { list: number[]; nested: { x: number } };
    };
    expect(() => {
      cached.spec.nested.x = 2;
    }).toThrow(TypeError);
    expect(() => cached.spec.list.push(3)).toThrow(TypeError);
    expect(() => {
      cached.metadata.name = 'b';
    }).toThrow(TypeError);
    expect(store.get('ns/a')).toEqual(obj('a', '1', { spec: { list: [1, 2], nested: { x: 1 } } }));
  });

  it('stores the given instance (no copies) and returns the same one to every reader', () => {
    const store = new Store();
    const o = obj('a', '1');
    store.upsert(o);
    expect(store.get('ns/a')).toBe(o);
    expect(store.list()[0]).toBe(o);
  });

  it('maintains custom indexes through updates and deletes, including indexes added later', () => {
    const store = new Store();
    store.upsert(obj('a', '1', { spec: { node: 'n1' } }));
    store.addIndex('node', (o) => [String(((o as UnstructuredObject).spec as { node: string }).node)]);
    store.upsert(obj('b', '1', { spec: { node: 'n1' } }));
    store.upsert(obj('c', '1', { spec: { node: 'n2' } }));
    expect(
      store
        .byIndex('node', 'n1')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'b']);
    store.upsert(obj('a', '2', { spec: { node: 'n2' } }));
    expect(store.byIndex('node', 'n1').map((o) => o.metadata.name)).toEqual(['b']);
    expect(
      store
        .byIndex('node', 'n2')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'c']);
    store.delete('ns/b');
    expect(store.byIndex('node', 'n1')).toEqual([]);
    expect(store.byIndex('node', 'none')).toEqual([]);
    expect(() => store.byIndex('nope', 'x')).toThrow(/no index/);
    expect(() => store.addIndex('node', () => [])).toThrow(/already exists/);
  });

  it('supports multi-valued indexes', () => {
    const store = new Store();
    store.addIndex('finalizer', (o) => o.metadata.finalizers ?? []);
    store.upsert(obj('a', '1', { metadata: { name: 'a', finalizers: ['x', 'y'] } }));
    expect(store.byIndex('finalizer', 'y').map((o) => o.metadata.name)).toEqual(['a']);
    expect(store.byIndex('finalizer', 'x').map((o) => o.metadata.name)).toEqual(['a']);
  });

  it('replace() returns the diff: added, updated (by resourceVersion) and deleted', () => {
    const store = new Store();
    store.replace([obj('keep', '1'), obj('change', '1'), obj('gone', '1')]);
    const keep = store.get('ns/keep');
    const diff = store.replace([obj('keep', '1'), obj('change', '2'), obj('new', '1')]);
    expect(diff.added.map((o) => o.metadata.name)).toEqual(['new']);
    expect(diff.updated.map((u) => [u.old.metadata.resourceVersion, u.new.metadata.resourceVersion])).toEqual(
      [['1', '2']],
    );
    expect(diff.deleted.map((o) => o.metadata.name)).toEqual(['gone']);
    expect(store.get('ns/keep')).toBe(keep);
    expect(store.keys().sort()).toEqual(['ns/change', 'ns/keep', 'ns/new']);
  });
});
