/**
 * The store (objects held per namespace, indexes holding objects) answers every read exactly as a
 * plain Map keyed by `namespace/name` would, through any sequence of upserts, deletes and replaces.
 * list() and byIndex() are compared as sets: the store groups its list by namespace.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/api/types.js';
import { Store, storeKey } from '../../src/cache/index.js';

type Obj = KubeObject & { spec: { node: string } };

const objectArb = fc.record({
  namespace: fc.constantFrom(undefined, '', 'a', 'b'),
  name: fc.constantFrom('x', 'y', 'z'),
  rv: fc.constantFrom('1', '2', '3', undefined),
  node: fc.constantFrom('n1', 'n2'),
});
type ObjectSpec = { namespace: string | undefined; name: string; rv: string | undefined; node: string };
const make = (o: ObjectSpec): Obj => ({
  metadata: {
    name: o.name,
    ...(o.namespace !== undefined ? { namespace: o.namespace } : {}),
    ...(o.rv !== undefined ? { resourceVersion: o.rv } : {}),
  },
  spec: { node: o.node },
});
const op = fc.oneof(
  fc.record({ kind: fc.constant('upsert' as const), object: objectArb }),
  fc.record({ kind: fc.constant('delete' as const), object: objectArb }),
  fc.record({ kind: fc.constant('replace' as const), objects: fc.array(objectArb, { maxLength: 6 }) }),
);

/** The reference: a Map by key, and replace as "every key of the list, unchanged rv kept". */
class Model {
  readonly items = new Map<string, Obj>();
  upsert(o: Obj) {
    this.items.set(storeKey(o), o);
  }
  delete(key: string) {
    this.items.delete(key);
  }
  replace(objects: Obj[]) {
    const next = new Map<string, Obj>();
    for (const o of objects) {
      const key = storeKey(o);
      const old = next.get(key) ?? this.items.get(key);
      const same =
        old !== undefined &&
        old.metadata.resourceVersion !== undefined &&
        old.metadata.resourceVersion === o.metadata.resourceVersion;
      next.set(key, same ? old : o);
    }
    this.items.clear();
    for (const [k, v] of next) this.items.set(k, v);
  }
}

const names = (objects: readonly KubeObject[]) => objects.map((o) => storeKey(o)).sort();

describe('Store (property)', () => {
  it('gets, lists, keys and indexes as a Map keyed by namespace/name', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 25 }), fc.boolean(), (ops, indexFirst) => {
        const store = new Store<Obj>();
        const model = new Model();
        const byNode = (o: Obj) => [o.spec.node];
        if (indexFirst) store.addIndex('node', byNode);
        for (const step of ops) {
          if (step.kind === 'upsert') {
            const o = make(step.object);
            const before = model.items.get(storeKey(o));
            expect(store.upsert(o)).toBe(before);
            model.upsert(o);
          } else if (step.kind === 'delete') {
            const key = storeKey(make(step.object));
            expect(store.delete(key)).toBe(model.items.get(key));
            model.delete(key);
          } else {
            const objects = step.objects.map(make);
            const before = new Map(model.items);
            const diff = store.replace(objects);
            model.replace(objects);
            // What the diff reports matches the before/after states.
            expect(names(diff.deleted)).toEqual([...before.keys()].filter((k) => !model.items.has(k)).sort());
            for (const a of diff.added) expect(before.has(storeKey(a))).toBe(false);
            // A key twice in one list: the second replaces the first (added or updated just before).
            const earlier = new Set<Obj>([...diff.added, ...diff.updated.map((u) => u.new)]);
            for (const u of diff.updated)
              expect(before.get(storeKey(u.new)) === u.old || earlier.has(u.old)).toBe(true);
          }
        }
        if (!indexFirst) store.addIndex('node', byNode);
        expect(store.size).toBe(model.items.size);
        expect(store.keys().sort()).toEqual([...model.items.keys()].sort());
        expect(names(store.list())).toEqual(names([...model.items.values()]));
        for (const [key, o] of model.items) {
          expect(store.get(key)).toBe(o);
          expect(store.getByName(o.metadata.namespace, o.metadata.name as string)).toBe(o);
        }
        for (const node of ['n1', 'n2']) {
          const expected = [...model.items.values()].filter((o) => o.spec.node === node);
          expect(names(store.byIndex('node', node))).toEqual(names(expected));
        }
        expect(store.get('a/none')).toBeUndefined();
      }),
    );
  });
});
