/**
 * The client and HttpTransport against a real kube-apiserver (the run's shared envtest control
 * plane): CRUD, lists and pages, patches, server-side apply.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { isAlreadyExists, isConflict, isInvalid, isNotFound } from '../../src/api/errors.js';
import { ConfigMap, Pod } from '../../src/client/builtin.js';
import { Client } from '../../src/client/client.js';
import { client, configMap, env, errorOf, key, metrics, transport } from './envtest-client-kit.js';

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
