import { useControlPlane } from '@capstan/envtest/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, ConfigMap, Event, HttpTransport, type KubeObject, Secret } from '../../src/client/index.js';
import {
  AlreadyOwnedError,
  addFinalizer,
  createOrPatch,
  createOrUpdate,
  EventRecorder,
  removeFinalizer,
  setControllerReference,
} from '../../src/helpers/index.js';

const env = useControlPlane('helpers');
let client: Client;
beforeAll(() => {
  client = new Client(new HttpTransport(env.kubeConfig));
});

describe('finalizers under a concurrent writer', () => {
  it('loses neither finalizer when two writers add and remove at once', async () => {
    const key = { namespace: env.namespace, name: 'fin' };
    const created = await client.create(ConfigMap, { metadata: key });
    // Both writers start from the same stale read: one of them must lose its test and retry.
    const stale = structuredClone(created);
    await Promise.all([
      addFinalizer(client, ConfigMap, stale, 'a.capstan.dev/one'),
      addFinalizer(client, ConfigMap, stale, 'b.capstan.dev/two'),
      addFinalizer(client, ConfigMap, stale, 'c.capstan.dev/three'),
    ]);
    const both = await client.get(ConfigMap, key);
    expect([...(both.metadata.finalizers ?? [])].sort()).toEqual([
      'a.capstan.dev/one',
      'b.capstan.dev/two',
      'c.capstan.dev/three',
    ]);
    // Concurrent removals from the same read keep the third.
    await Promise.all([
      removeFinalizer(client, ConfigMap, both, 'a.capstan.dev/one'),
      removeFinalizer(client, ConfigMap, both, 'b.capstan.dev/two'),
    ]);
    const left = await client.get(ConfigMap, key);
    expect(left.metadata.finalizers).toEqual(['c.capstan.dev/three']);
    await removeFinalizer(client, ConfigMap, left, 'c.capstan.dev/three');
  });
});

describe('createOrUpdate and createOrPatch', () => {
  it('reports created, then unchanged, then updated', async () => {
    const key = { namespace: env.namespace, name: 'cou' };
    const desired = (v: string) => (cm: KubeObject & { data?: Record<string, string> }) => {
      cm.data = { ...cm.data, v };
    };
    expect((await createOrUpdate(client, ConfigMap, key, desired('1'))).result).toBe('created');
    expect((await createOrUpdate(client, ConfigMap, key, desired('1'))).result).toBe('unchanged');
    const updated = await createOrUpdate(client, ConfigMap, key, desired('2'));
    expect(updated.result).toBe('updated');
    expect(updated.object.data?.v).toBe('2');
  });

  it('patches only what changed, keeping another writer’s fields', async () => {
    const key = { namespace: env.namespace, name: 'cop' };
    await createOrPatch(client, ConfigMap, key, (cm: KubeObject & { data?: Record<string, string> }) => {
      cm.data = { mine: '1' };
    });
    await client.patch(ConfigMap, key, 'merge', { data: { theirs: 'x' } });
    const stale = { mine: '1' }; // what we would have written with a full update from an old read
    const r = await createOrPatch(
      client,
      ConfigMap,
      key,
      (cm: KubeObject & { data?: Record<string, string> }) => {
        cm.data = { ...cm.data, mine: '2' };
      },
    );
    expect(r.result).toBe('updated');
    const now = await client.get(ConfigMap, key);
    expect(now.data).toEqual({ ...stale, mine: '2', theirs: 'x' });
  });
});

describe('owner references', () => {
  it('refuses a second controller', async () => {
    const a = await client.create(ConfigMap, { metadata: { namespace: env.namespace, name: 'owner-1' } });
    const b = await client.create(ConfigMap, { metadata: { namespace: env.namespace, name: 'owner-2' } });
    const owned: KubeObject = { metadata: { namespace: env.namespace, name: 'owned' } };
    setControllerReference(ConfigMap, a, owned);
    setControllerReference(ConfigMap, a, owned); // idempotent for the same owner
    expect(owned.metadata.ownerReferences).toHaveLength(1);
    expect(() => setControllerReference(ConfigMap, b, owned)).toThrow(AlreadyOwnedError);
    const written = await client.create(Secret, owned);
    expect(written.metadata.ownerReferences?.[0]).toMatchObject({ name: 'owner-1', controller: true });
  });
});

describe('EventRecorder', () => {
  it('aggregates repeats into one series whose count grows, and rate-limits per object', async () => {
    const target = await client.create(ConfigMap, { metadata: { namespace: env.namespace, name: 'evt' } });
    const recorder = new EventRecorder(client, {
      controller: 'test.capstan.dev/helpers',
      instance: 'test',
      burst: 3,
    });
    for (let i = 0; i < 5; i++) {
      recorder.record(ConfigMap, target, {
        type: 'Warning',
        reason: 'Flapping',
        action: 'Check',
        note: 'same',
      });
      await recorder.flush();
    }
    let events = (await client.list(Event, { namespace: env.namespace })).items.filter(
      (e) => e.regarding?.name === 'evt',
    );
    expect(events).toHaveLength(1);
    expect(events[0]?.series?.count).toBe(5);
    expect(events[0]).toMatchObject({
      reason: 'Flapping',
      type: 'Warning',
      reportingController: 'test.capstan.dev/helpers',
    });

    // Distinct events: the burst of 3 allows two more (one was used), the rest are dropped.
    for (let i = 0; i < 4; i++) {
      recorder.record(ConfigMap, target, {
        type: 'Normal',
        reason: 'Distinct',
        action: 'Check',
        note: `n${i}`,
      });
    }
    await recorder.flush();
    events = (await client.list(Event, { namespace: env.namespace })).items.filter(
      (e) => e.regarding?.name === 'evt',
    );
    expect(events).toHaveLength(3);
    expect(recorder.dropped).toBe(2);
  });
});
