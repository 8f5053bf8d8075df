import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import type { KubeObject, ObjectKey, ResourceType } from '../../src/api/types.js';
import { InformerCache } from '../../src/cache/index.js';
import {
  ControllerBuilder,
  type ObjectReconciler,
  objectReconciler,
  Permissions,
  type ReconcileContext,
} from '../../src/controller/index.js';
import { FakeCluster, ManualClock } from '../../src/testing/index.js';
import { ConfigMap, Node, Widget } from '../testing/fixtures.js';

const context: ReconcileContext = {
  signal: new AbortController().signal,
  log: pino({ level: 'silent' }),
  reconcileId: 'r1',
};

/** A reader that answers from a map, NotFound otherwise. */
function readerOf(objects: Record<string, KubeObject>) {
  return {
    async get<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey): Promise<T> {
      const found = objects[key.name];
      if (!found)
        throw new ApiError({ code: 404, reason: 'NotFound', message: `${type.plural} ${key.name}` });
      return found as T;
    },
  };
}

function recording(cleanup: boolean) {
  const calls: string[] = [];
  const r: ObjectReconciler<KubeObject> = {
    async reconcile(object, ctx) {
      calls.push(`reconcile ${object.metadata.name} ${ctx.request.name} ${ctx.reconcileId}`);
      return { requeueAfter: 5 };
    },
    ...(cleanup
      ? {
          async cleanup(object: KubeObject) {
            calls.push(`cleanup ${object.metadata.name}`);
            return undefined;
          },
        }
      : {}),
  };
  return { calls, r };
}

describe('objectReconciler', () => {
  const live = { metadata: { name: 'live', namespace: 'ns' } };
  const deleting = {
    metadata: { name: 'going', namespace: 'ns', deletionTimestamp: '2026-01-01T00:00:00Z' },
  };
  const reader = readerOf({ live, going: deleting });

  it('hands over the object read for the key, with the key in the context, and its result', async () => {
    const { calls, r } = recording(true);
    const result = await objectReconciler(reader, ConfigMap, r).reconcile(
      { namespace: 'ns', name: 'live' },
      context,
    );
    expect(result).toEqual({ requeueAfter: 5 });
    expect(calls).toEqual(['reconcile live live r1']);
  });

  it('skips a gone object, and sends a deleting one to cleanup, or nowhere without one', async () => {
    const withCleanup = recording(true);
    const key = objectReconciler(reader, ConfigMap, withCleanup.r);
    expect(await key.reconcile({ namespace: 'ns', name: 'absent' }, context)).toBeUndefined();
    await key.reconcile({ namespace: 'ns', name: 'going' }, context);
    expect(withCleanup.calls).toEqual(['cleanup going']);
    const without = recording(false);
    await objectReconciler(reader, ConfigMap, without.r).reconcile(
      { namespace: 'ns', name: 'going' },
      context,
    );
    expect(without.calls).toEqual([]);
  });

  it('passes on a read error other than NotFound', async () => {
    const failing = {
      get: async () => {
        throw new ApiError({ code: 500, reason: 'InternalError', message: 'boom' });
      },
    };
    const { r } = recording(true);
    await expect(objectReconciler(failing, ConfigMap, r).reconcile({ name: 'x' }, context)).rejects.toThrow(
      'boom',
    );
  });
});

describe('the builder records what its controller needs', () => {
  function builder(permissions: Permissions, reader = readerOf({})) {
    const clock = new ManualClock();
    const cluster = new FakeCluster({ clock, kinds: [Widget, Node, ConfigMap] });
    const cache = new InformerCache(cluster, { clock, onError: () => {} });
    return new ControllerBuilder(cache, { logger: pino({ level: 'silent' }), clock, permissions, reader });
  }

  it('reads for and watches, owns with writes, status, a finalizer and declared extras', () => {
    const permissions = new Permissions();
    builder(permissions)
      .for(Widget)
      .owns(ConfigMap, { verbs: ['get', 'list', 'watch', 'create', 'update'] })
      .watches(Node, () => [], { metadataOnly: true })
      .writesStatus()
      .permits(Node, ['patch'], { why: 'cordons nodes' })
      .buildObjects({ finalizer: 'w.dev/f', reconcile: async () => undefined });
    const g = Widget.group;
    expect(permissions.list()).toEqual([
      { group: '', resource: 'configmaps', verbs: ['get', 'list', 'watch', 'create', 'update'] },
      { group: '', resource: 'nodes', verbs: ['list', 'watch', 'patch'], why: 'cordons nodes' },
      {
        group: g,
        resource: 'widgets',
        verbs: ['list', 'watch', 'patch'],
        why: 'keeps the finalizer w.dev/f',
      },
      { group: g, resource: 'widgets/finalizers', verbs: ['update'], why: 'keeps the finalizer w.dev/f' },
      { group: g, resource: 'widgets/status', verbs: ['update', 'patch'] },
    ]);
  });

  it('gives a source limited to namespaces a rule in each, and records nothing unbuilt', () => {
    const permissions = new Permissions();
    const b = builder(permissions).for(Widget, { namespaces: ['a', 'b'] });
    expect(permissions.list()).toEqual([]);
    b.build(async () => undefined);
    expect(permissions.list().map((p) => [p.namespace, p.resource])).toEqual([
      ['a', 'widgets'],
      ['b', 'widgets'],
    ]);
  });

  it('refuses buildObjects without for() or without a reader', () => {
    const noop = { reconcile: async () => undefined };
    expect(() =>
      builder(new Permissions())
        .named('x')
        .watches(Node, () => [])
        .buildObjects(noop),
    ).toThrow(/needs for\(kind\)/);
    const clock = new ManualClock();
    const cache = new InformerCache(new FakeCluster({ clock, kinds: [Widget] }), { clock });
    expect(() => new ControllerBuilder(cache).for(Widget).buildObjects(noop)).toThrow(/needs a reader/);
  });
});
