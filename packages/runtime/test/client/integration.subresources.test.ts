/**
 * The client and HttpTransport against a real kube-apiserver (the run's shared envtest control
 * plane, with the garbage collector and disruption controllers running): the status subresource,
 * delete preconditions and propagation, eviction, watch.
 */
import { testCrd } from '@capstan/envtest';
import { beforeAll, describe, expect, it } from 'vitest';
import { isConflict, isNotFound, isTooManyRequests } from '../../src/api/errors.js';
import { defineResource, type KubeObject, type WatchEvent } from '../../src/api/types.js';
import { ConfigMap, CustomResourceDefinition, Pod, PodDisruptionBudget } from '../../src/client/builtin.js';
import { eventually } from '../../src/testing/index.js';
import { client, configMap, env, errorOf, key, transport } from './envtest-client-kit.js';

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
    await client.create(
      CustomResourceDefinition,
      testCrd(Widget, {
        schema: {
          type: 'object',
          properties: {
            spec: { type: 'object', properties: { size: { type: 'integer' } } },
            status: {
              type: 'object',
              properties: { ready: { type: 'boolean' }, observed: { type: 'integer' } },
            },
          },
        },
      }),
    );
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
    const events: WatchEvent<ConfigMap>[] = [];
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
    expect(events.map((e) => (e.type === 'ERROR' ? 'ERROR' : `${e.type} ${e.object.data?.v}`))).toEqual([
      'ADDED 1',
      'MODIFIED 2',
      'DELETED 2',
    ]);
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
