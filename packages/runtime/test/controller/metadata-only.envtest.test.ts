/**
 * `owns(Secret, { metadataOnly: true })` against the real apiserver: the informer watches
 * `PartialObjectMetadata` (the Accept header's `as=`), caches no Secret data, and an owned
 * Secret's change still reconciles its owner.
 */
import { useControlPlane } from '@capstan/envtest/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client, ConfigMap, HttpTransport, metadataOnly, Secret } from '../../src/client/index.js';
import { Manager } from '../../src/manager/index.js';
import { eventually } from '../../src/testing/index.js';
import { ApiProxy } from '../testing/api-proxy.js';

const env = useControlPlane('metadata-only');
const proxy = new ApiProxy();
let manager: Manager;
const stop = new AbortController();
let done: Promise<void>;
const reconciled: string[] = [];

beforeAll(async () => {
  manager = Manager.create({
    transport: new HttpTransport(await proxy.start(env.kubeConfig)),
    namespace: env.namespace,
    logLevel: 'silent',
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
  });
  manager
    .controllerBuilder()
    .for(ConfigMap)
    .owns(Secret, { metadataOnly: true })
    .build(async (request) => {
      reconciled.push(request.name);
      return {};
    });
  done = manager.start(stop.signal);
  await eventually(() => expect(manager.cache.hasSynced()).toBe(true), { timeoutMs: 30_000 });
});
afterAll(async () => {
  stop.abort();
  await done;
  await proxy.stop();
});

it('reconciles the owner when its metadata-only owned Secret changes, caching no data', async () => {
  const admin = new Client(new HttpTransport(env.kubeConfig));
  const owner = await admin.create(ConfigMap, { metadata: { name: 'owner', namespace: env.namespace } });
  const secret = await admin.create(Secret, {
    metadata: {
      name: 'owned',
      namespace: env.namespace,
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'owner',
          uid: owner.metadata.uid as string,
          controller: true,
        },
      ],
    },
    stringData: { password: 'hunter2' },
  } as Secret);
  await eventually(() => expect(reconciled).toContain('owner'));
  reconciled.length = 0;
  await admin.update(Secret, { ...secret, metadata: { ...secret.metadata, labels: { rotated: 'yes' } } });
  await eventually(() => expect(reconciled).toContain('owner'));

  const read = () => manager.client.get(metadataOnly(Secret), { namespace: env.namespace, name: 'owned' });
  await eventually(async () => expect((await read()).metadata.labels).toEqual({ rotated: 'yes' }));
  const cached = await read();
  expect(cached.kind).toBe('PartialObjectMetadata');
  expect(JSON.stringify(cached)).not.toContain('hunter2');
  expect(Object.keys(cached).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
  const secretWatches = proxy.seen.filter((r) => r.url.includes('/secrets') && r.query.get('watch'));
  expect(secretWatches.length).toBeGreaterThan(0);
});
