import { describe, expect, it } from 'vitest';
import { isAlreadyExists, isConflict, isInvalid, isNotFound } from '../../src/api/errors.js';
import { FakeCluster, flushMicrotasks, ManualClock } from '../../src/testing/index.js';
import { recordWatch, rejection, setup } from './cluster-kit.js';
import { ConfigMap, type Widget, Widget as WidgetType, widget } from './fixtures.js';

describe('FakeCluster create', () => {
  it('sets uid, creationTimestamp, generation 1 and an increasing resourceVersion', async () => {
    const { cluster } = setup();
    const a = await cluster.create(WidgetType, widget('a'));
    const b = await cluster.create(WidgetType, widget('b'));
    expect(a.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.metadata.uid).not.toBe(b.metadata.uid);
    expect(a.metadata.generation).toBe(1);
    expect(a.metadata.creationTimestamp).toBe('2024-01-01T00:00:00Z');
    expect(typeof a.metadata.resourceVersion).toBe('string');
    expect(Number(b.metadata.resourceVersion)).toBeGreaterThan(Number(a.metadata.resourceVersion));
    expect(cluster.currentResourceVersion()).toBe(b.metadata.resourceVersion);
  });

  it('answers AlreadyExists for a taken name and generates names from generateName', async () => {
    const { cluster } = setup();
    await cluster.create(WidgetType, widget('a'));
    expect(isAlreadyExists(await rejection(cluster.create(WidgetType, widget('a'))))).toBe(true);
    const g1 = await cluster.create(WidgetType, { metadata: { generateName: 'w-', namespace: 'default' } });
    const g2 = await cluster.create(WidgetType, { metadata: { generateName: 'w-', namespace: 'default' } });
    expect(g1.metadata.name).toMatch(/^w-[a-z0-9]{5}$/);
    expect(g1.metadata.name).not.toBe(g2.metadata.name);
  });

  it('drops status on create for kinds with a status subresource, keeps it otherwise', async () => {
    const { cluster } = setup();
    const w = await cluster.create(WidgetType, widget('a', 'default', { status: { ready: true } }));
    expect(w.status).toBeUndefined();
    const cm = await cluster.create(ConfigMap, {
      metadata: { name: 'c', namespace: 'default' },
      status: { x: 1 },
    });
    expect(cm.status).toEqual({ x: 1 });
  });

  it('answers 404 for unregistered kinds, on every verb', async () => {
    const cluster = new FakeCluster({ clock: new ManualClock() });
    expect(isNotFound(await rejection(cluster.list(WidgetType)))).toBe(true);
    expect(isNotFound(await rejection(cluster.watch(WidgetType, {}, recordWatch().callbacks)))).toBe(true);
    expect(isNotFound(await rejection(cluster.create(WidgetType, widget('a'))))).toBe(true);
  });

  it('hands out copies: mutating a returned object does not change the stored one', async () => {
    const { cluster } = setup();
    const a = await cluster.create(WidgetType, widget('a'));
    (a.spec as { size: number }).size = 99;
    const again = await cluster.get(WidgetType, { namespace: 'default', name: 'a' });
    expect(again.spec?.size).toBe(1);
  });
});

describe('FakeCluster update', () => {
  it('answers 409 Conflict for a stale resourceVersion', async () => {
    const { cluster } = setup();
    const a = await cluster.create(WidgetType, widget('a'));
    await cluster.update(WidgetType, { ...a, spec: { size: 2 } });
    const err = await rejection(cluster.update(WidgetType, { ...a, spec: { size: 3 } }));
    expect(isConflict(err)).toBe(true);
    expect(err.message).toContain('the object has been modified');
  });

  it('bumps generation on spec changes only, never on metadata or status writes', async () => {
    const { cluster } = setup();
    const a = await cluster.create(WidgetType, widget('a'));
    const labelled = await cluster.update(WidgetType, {
      ...a,
      metadata: { ...a.metadata, labels: { x: 'y' } },
    });
    expect(labelled.metadata.generation).toBe(1);
    expect(labelled.metadata.resourceVersion).not.toBe(a.metadata.resourceVersion);
    const specced = await cluster.update(WidgetType, { ...labelled, spec: { size: 5 } });
    expect(specced.metadata.generation).toBe(2);
    const statused = await cluster.update(
      WidgetType,
      { ...specced, status: { ready: true } },
      { subresource: 'status' },
    );
    expect(statused.metadata.generation).toBe(2);
    expect(statused.status).toEqual({ ready: true });
  });

  it('status writes change only status; main writes ignore status on status-subresource kinds', async () => {
    const { cluster } = setup();
    const a = await cluster.create(WidgetType, widget('a'));
    const s = await cluster.update(
      WidgetType,
      { ...a, spec: { size: 42 }, status: { ready: true } },
      { subresource: 'status' },
    );
    expect(s.spec?.size).toBe(1);
    expect(s.status).toEqual({ ready: true });
    const m = await cluster.update(WidgetType, { ...s, spec: { size: 7 }, status: { ready: false } });
    expect(m.spec?.size).toBe(7);
    expect(m.status).toEqual({ ready: true });
  });

  it('keeps the resourceVersion on a write that changes nothing', async () => {
    const { cluster } = setup();
    const a = await cluster.create(WidgetType, widget('a'));
    const same = await cluster.update(WidgetType, a);
    expect(same.metadata.resourceVersion).toBe(a.metadata.resourceVersion);
    expect(cluster.currentResourceVersion()).toBe(a.metadata.resourceVersion);
  });

  it('answers 404 for status writes on kinds without a status subresource', async () => {
    const { cluster } = setup();
    const cm = await cluster.create(ConfigMap, {
      metadata: { name: 'c', namespace: 'default' },
      data: { a: '1' },
    });
    expect(
      isNotFound(
        await rejection(cluster.update(ConfigMap, { ...cm, status: { x: 1 } }, { subresource: 'status' })),
      ),
    ).toBe(true);
    // Without a status subresource the main resource writes status.
    const u = await cluster.update(ConfigMap, { ...cm, status: { x: 2 } });
    expect(u.status).toEqual({ x: 2 });
  });

  it('answers NotFound for updates of missing objects', async () => {
    const { cluster } = setup();
    expect(isNotFound(await rejection(cluster.update(WidgetType, widget('nope'))))).toBe(true);
  });

  it('ignores client changes to server-owned metadata', async () => {
    const { cluster } = setup();
    const a = await cluster.create(WidgetType, widget('a'));
    const u = await cluster.update(WidgetType, {
      ...a,
      metadata: { ...a.metadata, creationTimestamp: '1999-01-01T00:00:00Z', generation: 77 },
      spec: { size: 2 },
    });
    expect(u.metadata.creationTimestamp).toBe(a.metadata.creationTimestamp);
    expect(u.metadata.generation).toBe(2);
  });
});

describe('FakeCluster patch', () => {
  it('merge patch: null deletes, objects merge, arrays replace', async () => {
    const { cluster } = setup();
    await cluster.create(
      WidgetType,
      widget('a', 'default', { spec: { size: 1, color: 'red', items: ['x', 'y'] } }),
    );
    const p = await cluster.patch(WidgetType, { namespace: 'default', name: 'a' }, 'merge', {
      spec: { color: null, items: ['z'] },
    });
    expect(p.spec).toEqual({ size: 1, items: ['z'] });
    expect(p.metadata.generation).toBe(2);
  });

  it('merge patch with a stale resourceVersion is a conflict', async () => {
    const { cluster } = setup();
    const a = await cluster.create(WidgetType, widget('a'));
    await cluster.patch(WidgetType, { namespace: 'default', name: 'a' }, 'merge', { spec: { size: 2 } });
    const err = await rejection(
      cluster.patch(WidgetType, { namespace: 'default', name: 'a' }, 'merge', {
        metadata: { resourceVersion: a.metadata.resourceVersion },
        spec: { size: 3 },
      }),
    );
    expect(isConflict(err)).toBe(true);
  });

  it('JSON patch applies operations and rejects the whole patch with 422 when a test fails', async () => {
    const { cluster } = setup();
    await cluster.create(
      WidgetType,
      widget('a', 'default', { metadata: { name: 'a', namespace: 'default', finalizers: ['f1'] } }),
    );
    const key = { namespace: 'default', name: 'a' };
    const ok = await cluster.patch(WidgetType, key, 'json', [
      { op: 'test', path: '/metadata/finalizers', value: ['f1'] },
      { op: 'add', path: '/metadata/finalizers/-', value: 'f2' },
      { op: 'replace', path: '/spec/size', value: 3 },
    ]);
    expect(ok.metadata.finalizers).toEqual(['f1', 'f2']);
    expect(ok.spec?.size).toBe(3);
    const err = await rejection(
      cluster.patch(WidgetType, key, 'json', [
        { op: 'test', path: '/metadata/finalizers', value: ['f1'] },
        { op: 'remove', path: '/metadata/finalizers/0' },
      ]),
    );
    expect(isInvalid(err)).toBe(true);
    expect(cluster.getObject(WidgetType, key)?.metadata.finalizers).toEqual(['f1', 'f2']);
  });

  it('JSON patch supports move, copy and remove, and rejects missing paths with 422', async () => {
    const { cluster } = setup();
    await cluster.create(WidgetType, widget('a', 'default', { spec: { size: 1, color: 'red' } }));
    const key = { namespace: 'default', name: 'a' };
    const p = await cluster.patch(WidgetType, key, 'json', [
      { op: 'copy', from: '/spec/color', path: '/spec/items' },
      { op: 'move', from: '/spec/color', path: '/metadata/annotations' },
      { op: 'remove', path: '/spec/size' },
    ]);
    expect(p.spec).toEqual({ items: 'red' });
    expect(p.metadata.annotations).toBe('red');
    expect(
      isInvalid(
        await rejection(cluster.patch(WidgetType, key, 'json', [{ op: 'remove', path: '/spec/nothing' }])),
      ),
    ).toBe(true);
    expect((await rejection(cluster.patch(WidgetType, key, 'json', { op: 'add' }))).code).toBe(400);
  });

  it('status patch touches only status', async () => {
    const { cluster } = setup();
    await cluster.create(WidgetType, widget('a'));
    const p = await cluster.patch(
      WidgetType,
      { namespace: 'default', name: 'a' },
      'merge',
      { spec: { size: 9 }, status: { observed: 1 } },
      { subresource: 'status' },
    );
    expect(p.spec?.size).toBe(1);
    expect(p.status).toEqual({ observed: 1 });
    expect(p.metadata.generation).toBe(1);
  });

  it('apply creates missing objects, merges into existing ones and records the field manager', async () => {
    const { cluster } = setup();
    const key = { namespace: 'default', name: 'ssa' };
    const body = {
      apiVersion: 'example.dev/v1',
      kind: 'Widget',
      metadata: { name: 'ssa', namespace: 'default' },
      spec: { size: 1 },
    };
    expect(isInvalid(await rejection(cluster.patch(WidgetType, key, 'apply', body)))).toBe(true);
    const created = await cluster.patch(WidgetType, key, 'apply', body, { fieldManager: 'me' });
    expect(created.spec?.size).toBe(1);
    expect(created.metadata.managedFields).toEqual([
      expect.objectContaining({ manager: 'me', operation: 'Apply' }),
    ]);
    const merged = await cluster.patch(
      WidgetType,
      key,
      'apply',
      { ...body, spec: { color: 'blue' } },
      { fieldManager: 'me' },
    );
    expect(merged.spec).toEqual({ size: 1, color: 'blue' });
  });
});

describe('FakeCluster delete and finalizers', () => {
  it('deletes at once without finalizers; NotFound afterwards', async () => {
    const { cluster } = setup();
    await cluster.create(WidgetType, widget('a'));
    const res = (await cluster.delete(WidgetType, { namespace: 'default', name: 'a' })) as {
      status?: string;
    };
    expect(res.status).toBe('Success');
    expect(isNotFound(await rejection(cluster.get(WidgetType, { namespace: 'default', name: 'a' })))).toBe(
      true,
    );
    expect(isNotFound(await rejection(cluster.delete(WidgetType, { namespace: 'default', name: 'a' })))).toBe(
      true,
    );
  });

  it('with finalizers: sets deletionTimestamp, keeps the object until the last finalizer goes, then DELETED', async () => {
    const { clock, cluster } = setup();
    const w = recordWatch();
    await cluster.watch(WidgetType, { resourceVersion: cluster.currentResourceVersion() }, w.callbacks);
    await cluster.create(
      WidgetType,
      widget('a', 'default', { metadata: { name: 'a', namespace: 'default', finalizers: ['x', 'y'] } }),
    );
    clock.advance(5000);
    const key = { namespace: 'default', name: 'a' };
    const terminating = (await cluster.delete(WidgetType, key)) as Widget;
    expect(terminating.metadata.deletionTimestamp).toBe('2024-01-01T00:00:05Z');
    // A second delete changes nothing.
    const again = (await cluster.delete(WidgetType, key)) as Widget;
    expect(again.metadata.resourceVersion).toBe(terminating.metadata.resourceVersion);
    // No new finalizers on a terminating object.
    expect(
      isInvalid(
        await rejection(
          cluster.update(WidgetType, {
            ...again,
            metadata: { ...again.metadata, finalizers: ['x', 'y', 'z'] },
          }),
        ),
      ),
    ).toBe(true);
    const one = await cluster.update(WidgetType, {
      ...again,
      metadata: { ...again.metadata, finalizers: ['y'] },
    });
    expect(one.metadata.deletionTimestamp).toBeDefined();
    expect(cluster.getObject(WidgetType, key)).toBeDefined();
    await cluster.patch(WidgetType, key, 'merge', { metadata: { finalizers: null } });
    expect(cluster.getObject(WidgetType, key)).toBeUndefined();
    await flushMicrotasks();
    expect(w.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED']);
  });

  it('honours delete preconditions', async () => {
    const { cluster } = setup();
    const a = await cluster.create(WidgetType, widget('a'));
    const key = { namespace: 'default', name: 'a' };
    expect(
      isConflict(await rejection(cluster.delete(WidgetType, key, { preconditions: { uid: 'other' } }))),
    ).toBe(true);
    expect(
      isConflict(
        await rejection(cluster.delete(WidgetType, key, { preconditions: { resourceVersion: '1' } })),
      ),
    ).toBe(true);
    await cluster.delete(WidgetType, key, {
      preconditions: { uid: a.metadata.uid, resourceVersion: a.metadata.resourceVersion },
    });
    expect(cluster.getObject(WidgetType, key)).toBeUndefined();
  });
});
