/**
 * The client and HttpTransport against a real kube-apiserver (the run's shared envtest control
 * plane, with the garbage collector and disruption controllers running).
 */
import { useControlPlane } from '@capstan/envtest/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigMap, CustomResourceDefinition, Pod, PodDisruptionBudget } from '../../src/client/builtin.js';
import { Client } from '../../src/client/client.js';
import {
  type ApiError,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  isTooManyRequests,
} from '../../src/client/errors.js';
import { HttpTransport, type RequestMetric } from '../../src/client/http-transport.js';
import { defineResource, type KubeObject, type WatchEvent } from '../../src/client/types.js';
import { eventually } from '../../src/testing/index.js';

const env = useControlPlane('client');

let transport: HttpTransport;
let client: Client;
const metrics: RequestMetric[] = [];
beforeAll(() => {
  transport = new HttpTransport(env.kubeConfig, { onRequest: (m) => metrics.push(m) });
  client = new Client(transport, { fieldManager: 'capstan-test' });
  return () => transport.close();
});

const key = (name: string) => ({ namespace: env.namespace, name });
const configMap = (name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}) => ({
  metadata: { name, namespace: env.namespace, labels },
  data,
});

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as ApiError,
  );

describe('CRUD of ConfigMaps', () => {
  it('creates, reads, updates, lists and deletes', async () => {
    const created = await client.create(ConfigMap, configMap('crud', { a: '1' }));
    expect(created.apiVersion).toBe('v1');
    expect(created.kind).toBe('ConfigMap');
    expect(created.metadata.uid).toBeTruthy();

    const got = await client.get(ConfigMap, key('crud'));
    expect(got.data).toEqual({ a: '1' });

    got.data = { a: '2' };
    const updated = await client.update(ConfigMap, got);
    expect(updated.data).toEqual({ a: '2' });
    expect(updated.metadata.resourceVersion).not.toBe(got.metadata.resourceVersion);

    const list = await client.list(ConfigMap, { namespace: env.namespace });
    expect(list.items.map((o) => o.metadata.name)).toContain('crud');
    expect(list.items.every((o) => o.kind === 'ConfigMap' && o.apiVersion === 'v1')).toBe(true);
    expect(list.resourceVersion).not.toBe('');

    await client.delete(ConfigMap, key('crud'));
    expect(isNotFound(await errorOf(client.get(ConfigMap, key('crud'))))).toBe(true);
    expect(metrics.some((m) => m.method === 'POST' && m.code === '201' && m.host === transport.host)).toBe(
      true,
    );
  });

  it('fails with AlreadyExists, NotFound and Conflict where the server does', async () => {
    const first = await client.create(ConfigMap, configMap('errors'));
    expect(isAlreadyExists(await errorOf(client.create(ConfigMap, configMap('errors'))))).toBe(true);

    const missing = await errorOf(client.get(ConfigMap, key('no-such-thing')));
    expect(isNotFound(missing)).toBe(true);
    expect(missing?.reason).toBe('NotFound');
    expect(await client.deleteIfExists(ConfigMap, key('no-such-thing'))).toBe(false);

    await client.update(ConfigMap, { ...first, data: { x: 'fresh' } });
    const stale = await errorOf(client.update(ConfigMap, { ...first, data: { x: 'stale' } }));
    expect(isConflict(stale)).toBe(true);
    expect((await client.get(ConfigMap, key('errors'))).data).toEqual({ x: 'fresh' });
  });
});

describe('list', () => {
  beforeAll(async () => {
    for (let i = 0; i < 7; i++) {
      await client.create(
        ConfigMap,
        configMap(`page-${i}`, {}, { set: 'paging', idx: String(i), parity: String(i % 2) }),
      );
    }
  });

  it('returns one page and a continue token with a limit, and the rest when followed', async () => {
    const first = await client.list(ConfigMap, {
      namespace: env.namespace,
      labelSelector: 'set=paging',
      limit: 3,
    });
    expect(first.items).toHaveLength(3);
    expect(first.continue).toBeTruthy();
    const names = first.items.map((o) => o.metadata.name);
    let token = first.continue;
    while (token) {
      const page = await client.list(ConfigMap, {
        namespace: env.namespace,
        labelSelector: 'set=paging',
        limit: 3,
        continue: token,
      });
      names.push(...page.items.map((o) => o.metadata.name));
      token = page.continue;
    }
    expect(names.sort()).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `page-${i}`));
  });

  it('fetches every page when no limit is given', async () => {
    const small = new Client(transport, { pageSize: 2 });
    const before = metrics.length;
    const all = await small.list(ConfigMap, { namespace: env.namespace, labelSelector: 'set=paging' });
    expect(all.items).toHaveLength(7);
    expect(all.continue).toBeUndefined();
    expect(metrics.length - before).toBe(4);
  });

  it('filters by label selectors, set-based ones included', async () => {
    const odd = await client.list(ConfigMap, {
      namespace: env.namespace,
      labelSelector: 'set=paging,parity=1',
    });
    expect(odd.items.map((o) => o.metadata.labels?.idx).sort()).toEqual(['1', '3', '5']);
    const some = await client.list(ConfigMap, {
      namespace: env.namespace,
      labelSelector: 'idx in (2,4),parity!=1',
    });
    expect(some.items.map((o) => o.metadata.name).sort()).toEqual(['page-2', 'page-4']);
    const byField = await client.list(ConfigMap, {
      namespace: env.namespace,
      fieldSelector: 'metadata.name=page-6',
    });
    expect(byField.items.map((o) => o.metadata.name)).toEqual(['page-6']);
  });
});

describe('patch', () => {
  it('merge-patches (null deletes a key) and JSON-patches (a failed test op changes nothing)', async () => {
    await client.create(ConfigMap, configMap('patched', { keep: 'k', drop: 'd' }));
    const merged = await client.patch(ConfigMap, key('patched'), 'merge', {
      data: { drop: null, added: 'a' },
    });
    expect(merged.data).toEqual({ keep: 'k', added: 'a' });

    const patched = await client.patch(ConfigMap, key('patched'), 'json', [
      { op: 'test', path: '/data/keep', value: 'k' },
      { op: 'replace', path: '/data/keep', value: 'k2' },
    ]);
    expect(patched.data?.keep).toBe('k2');

    const failed = await errorOf(
      client.patch(ConfigMap, key('patched'), 'json', [
        { op: 'test', path: '/data/keep', value: 'wrong' },
        { op: 'remove', path: '/data/keep' },
      ]),
    );
    expect(failed?.code).toBeGreaterThanOrEqual(400);
    expect((await client.get(ConfigMap, key('patched'))).data?.keep).toBe('k2');
  });

  it('strategic-merge-patches a list by its merge key (a merge patch would replace it)', async () => {
    await client.create(Pod, {
      metadata: { name: 'strategic', namespace: env.namespace },
      spec: {
        containers: [
          { name: 'a', image: 'busybox:1' },
          { name: 'b', image: 'busybox:1' },
        ],
      },
    });
    const pod = await client.patch(Pod, key('strategic'), 'strategic', {
      spec: { containers: [{ name: 'a', image: 'busybox:2' }] },
    });
    expect(pod.spec?.containers.map((c) => `${c.name}=${c.image}`)).toEqual(['a=busybox:2', 'b=busybox:1']);
    // The same body as a merge patch replaces the whole list, which the server refuses for a pod.
    const merge = await errorOf(
      client.patch(Pod, key('strategic'), 'merge', {
        spec: { containers: [{ name: 'a', image: 'busybox:3' }] },
      }),
    );
    expect(isInvalid(merge)).toBe(true);
  });
});

describe('server-side apply', () => {
  it('applies with a field manager, conflicts with another manager, and wins with force', async () => {
    const applied = await client.apply(ConfigMap, configMap('ssa', { owned: 'by-a' }), {
      fieldManager: 'manager-a',
    });
    expect(applied.data).toEqual({ owned: 'by-a' });
    expect(applied.metadata.managedFields).toEqual(
      expect.arrayContaining([expect.objectContaining({ manager: 'manager-a', operation: 'Apply' })]),
    );

    const conflict = await errorOf(
      client.apply(ConfigMap, configMap('ssa', { owned: 'by-b' }), { fieldManager: 'manager-b' }),
    );
    expect(isConflict(conflict)).toBe(true);
    expect(conflict?.message).toContain('manager-a');

    const forced = await client.apply(ConfigMap, configMap('ssa', { owned: 'by-b' }), {
      fieldManager: 'manager-b',
      force: true,
    });
    expect(forced.data).toEqual({ owned: 'by-b' });

    // Applying again without a field removes it: manager-b now owns `owned`, manager-a owns nothing.
    const shrunk = await client.apply(ConfigMap, configMap('ssa', { other: 'x' }), {
      fieldManager: 'manager-b',
    });
    expect(shrunk.data).toEqual({ other: 'x' });
  });
});

interface Widget extends KubeObject {
  spec?: { size?: number };
  status?: { ready?: boolean; observed?: number };
}
const Widget = defineResource<Widget>({
  group: 'clienttest.capstan.dev',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});

describe('status subresource of a custom resource', () => {
  beforeAll(async () => {
    await client.deleteIfExists(CustomResourceDefinition, { name: 'widgets.clienttest.capstan.dev' });
    await eventually(
      async () =>
        (await client.deleteIfExists(CustomResourceDefinition, { name: 'widgets.clienttest.capstan.dev' }))
          ? undefined
          : true,
      { timeoutMs: 30_000 },
    );
    await client.create(CustomResourceDefinition, {
      metadata: { name: 'widgets.clienttest.capstan.dev' },
      spec: {
        group: 'clienttest.capstan.dev',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { size: { type: 'integer' } } },
                  status: {
                    type: 'object',
                    properties: { ready: { type: 'boolean' }, observed: { type: 'integer' } },
                  },
                },
              },
            },
          },
        ],
      },
    });
    await eventually(
      async () => {
        const crd = await client.get(CustomResourceDefinition, { name: 'widgets.clienttest.capstan.dev' });
        return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')
          ? true
          : undefined;
      },
      { timeoutMs: 30_000 },
    );
    // Established can precede the REST endpoint by a moment.
    await eventually(
      async () =>
        await client.list(Widget, { namespace: env.namespace }).then(
          () => true,
          () => undefined,
        ),
      { timeoutMs: 30_000 },
    );
  });

  it('writes status only through the status subresource, and spec only through the main resource', async () => {
    const created = await client.create(Widget, {
      metadata: { name: 'w1', namespace: env.namespace },
      spec: { size: 1 },
      status: { ready: true },
    });
    expect(created.apiVersion).toBe('clienttest.capstan.dev/v1');
    expect(created.status).toBeUndefined(); // status is ignored on create

    const withStatus = await client.updateStatus(Widget, {
      ...created,
      spec: { size: 99 },
      status: { ready: true },
    });
    expect(withStatus.status).toEqual({ ready: true });
    expect(withStatus.spec).toEqual({ size: 1 }); // spec is ignored on a status write

    const specOnly = await client.update(Widget, {
      ...withStatus,
      spec: { size: 2 },
      status: { ready: false },
    });
    expect(specOnly.spec).toEqual({ size: 2 });
    expect(specOnly.status).toEqual({ ready: true }); // status is ignored on a main write
    expect(specOnly.metadata.generation).toBe(2);

    const patched = await client.patchStatus(Widget, key('w1'), 'merge', { status: { observed: 2 } });
    expect(patched.status).toEqual({ ready: true, observed: 2 });

    const applied = await client.applyStatus(
      Widget,
      { metadata: { name: 'w1', namespace: env.namespace }, status: { ready: false } },
      { fieldManager: 'status-writer', force: true },
    );
    expect(applied.status?.ready).toBe(false);
    expect(applied.spec).toEqual({ size: 2 });
  });
});

describe('delete', () => {
  it('honours preconditions on uid and resourceVersion', async () => {
    const cm = await client.create(ConfigMap, configMap('preconditioned'));
    const wrongUid = await errorOf(
      client.delete(ConfigMap, key('preconditioned'), {
        preconditions: { uid: '00000000-0000-0000-0000-000000000000' },
      }),
    );
    expect(isConflict(wrongUid)).toBe(true);
    await client.patch(ConfigMap, key('preconditioned'), 'merge', { data: { bump: '1' } });
    const staleRv = await errorOf(
      client.delete(ConfigMap, key('preconditioned'), {
        preconditions: { resourceVersion: cm.metadata.resourceVersion },
      }),
    );
    expect(isConflict(staleRv)).toBe(true);
    await client.delete(ConfigMap, key('preconditioned'), { preconditions: { uid: cm.metadata.uid } });
    expect(isNotFound(await errorOf(client.get(ConfigMap, key('preconditioned'))))).toBe(true);
  });

  async function ownerWithDependent(name: string) {
    const owner = await client.create(ConfigMap, configMap(`${name}-owner`));
    await client.create(ConfigMap, {
      metadata: {
        name: `${name}-dependent`,
        namespace: env.namespace,
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: owner.metadata.name as string,
            uid: owner.metadata.uid as string,
            blockOwnerDeletion: true,
          },
        ],
      },
    });
  }

  it('propagates Foreground: the owner waits for its dependents, then both are gone', async () => {
    await ownerWithDependent('fg');
    await client.delete(ConfigMap, key('fg-owner'), { propagationPolicy: 'Foreground' });
    const deleting = await client.get(ConfigMap, key('fg-owner')).catch(() => undefined);
    if (deleting) {
      expect(deleting.metadata.deletionTimestamp).toBeTruthy();
      expect(deleting.metadata.finalizers).toContain('foregroundDeletion');
    }
    await eventually(
      async () => ((await client.deleteIfExists(ConfigMap, key('fg-dependent'), {})) ? undefined : true),
      { timeoutMs: 30_000 },
    );
    await eventually(
      async () => (isNotFound(await errorOf(client.get(ConfigMap, key('fg-owner')))) ? true : undefined),
      { timeoutMs: 30_000 },
    );
  });

  it('propagates Orphan: the dependent stays, without its owner reference', async () => {
    await ownerWithDependent('orphan');
    await client.delete(ConfigMap, key('orphan-owner'), { propagationPolicy: 'Orphan' });
    await eventually(
      async () => (isNotFound(await errorOf(client.get(ConfigMap, key('orphan-owner')))) ? true : undefined),
      { timeoutMs: 30_000 },
    );
    const dependent = await eventually(
      async () => {
        const d = await client.get(ConfigMap, key('orphan-dependent'));
        return d.metadata.ownerReferences?.length ? undefined : d;
      },
      { timeoutMs: 30_000 },
    );
    expect(dependent.metadata.ownerReferences ?? []).toEqual([]);
  });
});

describe('eviction', () => {
  const pod = (name: string, app: string) => ({
    metadata: { name, namespace: env.namespace, labels: { app } },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  });

  it('evicts a pod no budget protects', async () => {
    await client.create(Pod, pod('evictable', 'free'));
    await client.evict(key('evictable'), { gracePeriodSeconds: 0 });
    await eventually(
      async () => (isNotFound(await errorOf(client.get(Pod, key('evictable')))) ? true : undefined),
      { timeoutMs: 30_000 },
    );
  });

  it('refuses with 429 TooManyRequests when a PodDisruptionBudget forbids it', async () => {
    await client.create(Pod, pod('guarded', 'guarded'));
    // Pending pods may always be evicted; a Running one is what a budget protects.
    await client.patchStatus(Pod, key('guarded'), 'merge', { status: { phase: 'Running' } });
    await client.create(PodDisruptionBudget, {
      metadata: { name: 'guard', namespace: env.namespace },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } },
    });
    const err = await errorOf(client.evict(key('guarded')));
    expect(isTooManyRequests(err), String(err)).toBe(true);
    expect((await client.get(Pod, key('guarded'))).metadata.deletionTimestamp).toBeUndefined();
  });
});

describe('watch', () => {
  it('delivers ADDED, MODIFIED and DELETED in order from a list resourceVersion', async () => {
    const list = await client.list(ConfigMap, { namespace: env.namespace, labelSelector: 'watched=yes' });
    const events: WatchEvent<KubeObject>[] = [];
    let closed: Error | undefined | null = null;
    const handle = await transport.watch(
      ConfigMap,
      { namespace: env.namespace, labelSelector: 'watched=yes', resourceVersion: list.resourceVersion },
      { onEvent: (e) => events.push(e), onClose: (err) => (closed = err) },
    );
    await client.create(ConfigMap, configMap('watched', { v: '1' }, { watched: 'yes' }));
    await client.patch(ConfigMap, key('watched'), 'merge', { data: { v: '2' } });
    await client.delete(ConfigMap, key('watched'));
    await eventually(async () => (events.length >= 3 ? true : undefined));
    handle.stop();
    expect(closed).toBeUndefined();
    expect(
      events.map((e) =>
        e.type === 'ERROR' ? 'ERROR' : `${e.type} ${e.object.data && (e.object.data as { v: string }).v}`,
      ),
    ).toEqual(['ADDED 1', 'MODIFIED 2', 'DELETED 2']);
  });

  it('ends cleanly (onClose without error) when the server-side timeout expires', async () => {
    const started = Date.now();
    const closed = await new Promise<Error | undefined>((resolve, reject) => {
      transport
        .watch(
          ConfigMap,
          { namespace: env.namespace, timeoutSeconds: 1 },
          { onEvent: () => {}, onClose: resolve },
        )
        .catch(reject);
    });
    expect(closed).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });
});
