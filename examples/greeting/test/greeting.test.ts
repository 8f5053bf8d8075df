import { fileURLToPath } from 'node:url';
import { useControlPlane } from '@capstan/envtest/vitest';
import { Client, isInvalid, Manager } from '@capstan/runtime';
import { ConfigMap, HttpTransport } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addGreeting, type Greeting, GreetingType } from '../src/index.js';

const env = useControlPlane('greeting');
const crd = fileURLToPath(new URL('../deploy/crd.yaml', import.meta.url));
let client: Client;
let manager: Manager;
const stop = new AbortController();
let running: Promise<void>;

beforeAll(async () => {
  await env.plane.installCRDs([crd]);
  client = new Client(new HttpTransport(env.kubeConfig));
  manager = Manager.create({
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    metricsBindAddress: '127.0.0.1:0',
    healthProbeBindAddress: '127.0.0.1:0',
    logLevel: 'silent',
  });
  addGreeting(manager);
  running = manager.start(stop.signal);
});
afterAll(async () => {
  stop.abort();
  await running;
});

describe('the Greeting example under a Manager', () => {
  it('creates an owned ConfigMap and reports Ready with the observed generation', async () => {
    const created = await client.create(GreetingType, {
      metadata: { name: 'hello', namespace: env.namespace },
      spec: { message: 'Hello', recipients: ['Ada', 'Linus'] },
    });
    const cm = await eventually(
      () => client.get(ConfigMap, { namespace: env.namespace, name: 'hello-greeting' }),
      { timeoutMs: 15_000 },
    );
    expect(cm.data).toEqual({ greeting: 'Hello, Ada!\nHello, Linus!' });
    expect(cm.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'Greeting',
      uid: created.metadata.uid,
      controller: true,
    });
    const ready = await eventually(
      async () => {
        const g = await client.get(GreetingType, { namespace: env.namespace, name: 'hello' });
        return g.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True') ? g : undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(ready.status?.observedGeneration).toBe(1);
  });

  it('follows spec changes and repairs a deleted ConfigMap', async () => {
    await client.patch(GreetingType, { namespace: env.namespace, name: 'hello' }, 'merge', {
      spec: { message: 'Hi' },
    });
    await eventually(
      async () => {
        const cm = await client.get(ConfigMap, { namespace: env.namespace, name: 'hello-greeting' });
        return cm.data?.greeting?.startsWith('Hi, Ada!') ? cm : undefined;
      },
      { timeoutMs: 15_000 },
    );
    const g = await eventually(
      async () => {
        const x = await client.get(GreetingType, { namespace: env.namespace, name: 'hello' });
        return x.status?.observedGeneration === 2 ? x : undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(g.metadata.generation).toBe(2);

    await client.delete(ConfigMap, { namespace: env.namespace, name: 'hello-greeting' });
    const again = await eventually(
      () => client.get(ConfigMap, { namespace: env.namespace, name: 'hello-greeting' }),
      { timeoutMs: 15_000 },
    );
    expect(again.data?.greeting).toContain('Hi, Linus!');
  });

  it('is refused by the CRD schema when the message is empty', async () => {
    const error = await client
      .create(GreetingType, {
        metadata: { name: 'bad', namespace: env.namespace },
        spec: { message: '' },
      } as Greeting)
      .catch((e: unknown) => e);
    expect(isInvalid(error)).toBe(true);
  });

  it('serves /readyz and counts its reconciles on /metrics', async () => {
    const { metrics, probes } = manager.listening;
    expect((await fetch(`http://127.0.0.1:${probes}/readyz`)).status).toBe(200);
    const text = await (await fetch(`http://127.0.0.1:${metrics}/metrics`)).text();
    const success = text.match(
      /^controller_runtime_reconcile_total\{controller="greeting",result="success"\} (\d+)/m,
    );
    expect(Number(success?.[1])).toBeGreaterThanOrEqual(3);
    expect(text).toMatch(/^workqueue_adds_total\{[^}]*name="greeting"[^}]*\} [1-9]/m);
  });
});
