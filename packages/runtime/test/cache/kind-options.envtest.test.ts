/**
 * Per-kind cache options and several namespaces, against the real apiserver: a manager watching
 * two namespaces (not one, not all) keeps only the ConfigMaps its kind's label selector picks,
 * transformed by the kind's transform, and reconciles exactly those.
 */
import { useControlPlane } from '@capstan/envtest/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client, ConfigMap, HttpTransport, Namespace } from '../../src/client/index.js';
import { Manager } from '../../src/manager/index.js';
import { eventually } from '../../src/testing/index.js';

const env = useControlPlane('kind-options');
const admin = () => new Client(new HttpTransport(env.kubeConfig));
let second: string;
let outside: string;

beforeAll(async () => {
  second = `${env.namespace}-b`;
  outside = `${env.namespace}-c`;
  for (const name of [second, outside]) await admin().create(Namespace, { metadata: { name } });
});
afterAll(async () => {
  for (const name of [second, outside]) await admin().deleteIfExists(Namespace, { name });
});

it('caches and reconciles only the selected objects of its namespaces, transformed', async () => {
  const reconciled = new Set<string>();
  const manager = Manager.create({
    kubeConfig: env.kubeConfig,
    namespaces: [env.namespace, second],
    logLevel: 'silent',
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    cache: {
      byKind: [
        {
          type: ConfigMap,
          labelSelector: 'app=watched',
          // Keep what the controller reads: the labels, not the (large) data.
          transform: (cm: ConfigMap) => ({ ...cm, data: undefined }),
        },
      ],
    },
  });
  manager
    .controllerBuilder()
    .for(ConfigMap)
    .build(async (request) => {
      reconciled.add(`${request.namespace}/${request.name}`);
      return {};
    });
  const stop = new AbortController();
  const done = manager.start(stop.signal);
  try {
    const client = admin();
    for (const namespace of [env.namespace, second, outside]) {
      for (const [name, labels] of [
        ['picked', { app: 'watched' }],
        ['ignored', { app: 'other' }],
      ] as const) {
        await client.create(ConfigMap, {
          metadata: { name, namespace, labels },
          data: { big: 'x'.repeat(1000) },
        });
      }
    }
    const expected = [`${env.namespace}/picked`, `${second}/picked`];
    await eventually(() => expect([...reconciled].sort()).toEqual(expected.sort()), { timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 500)); // nothing else arrives
    expect([...reconciled].sort()).toEqual(expected.sort());

    const cached = await manager.client.list(ConfigMap);
    expect(cached.items.map((c) => `${c.metadata.namespace}/${c.metadata.name}`).sort()).toEqual(
      expected.sort(),
    );
    expect(cached.items.every((c) => c.data === undefined)).toBe(true);
    const one = await manager.client.get(ConfigMap, { namespace: second, name: 'picked' });
    expect(one.metadata.labels).toEqual({ app: 'watched' });
  } finally {
    stop.abort();
    await done;
  }
}, 60_000);
