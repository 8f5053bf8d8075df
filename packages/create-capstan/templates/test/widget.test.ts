/** The Widget controller against a real API server (envtest: etcd + kube-apiserver). */
import { fileURLToPath } from 'node:url';
import { useControlPlane } from '@capstan/envtest/vitest';
import { Client, Manager } from '@capstan/runtime';
import { ConfigMap, HttpTransport } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WidgetType } from '../src/api/generated.js';
import { addWidget } from '../src/index.js';

const env = useControlPlane('widget'); // a fresh namespace for this file
const crd = fileURLToPath(new URL('../deploy/crd.yaml', import.meta.url));
const stop = new AbortController();
let running: Promise<void>;
let client: Client;

beforeAll(async () => {
  await env.plane.installCRDs([crd]);
  client = new Client(new HttpTransport(env.kubeConfig));
  const manager = Manager.create({
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logLevel: 'silent',
  });
  addWidget(manager);
  running = manager.start(stop.signal);
});
afterAll(async () => {
  stop.abort();
  await running;
});

it('keeps a Widget’s message in a ConfigMap it owns, and reports Ready', async () => {
  await client.create(WidgetType, {
    metadata: { name: 'hello', namespace: env.namespace },
    spec: { message: 'hello, world' },
  });
  const cm = await eventually(() =>
    client.get(ConfigMap, { namespace: env.namespace, name: 'hello-message' }),
  );
  expect(cm.data?.message).toBe('hello, world');
  expect(cm.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Widget', name: 'hello', controller: true });
  const widget = await eventually(async () => {
    const w = await client.get(WidgetType, { namespace: env.namespace, name: 'hello' });
    if (w.status?.conditions?.[0]?.status !== 'True') throw new Error('not Ready yet');
    return w;
  });
  expect(widget.status?.configMapName).toBe('hello-message');
});

it('is refused by the CRD schema without a message', async () => {
  const bad = { metadata: { name: 'empty', namespace: env.namespace }, spec: { message: '' } };
  await expect(client.create(WidgetType, bad)).rejects.toThrow(/spec\.message/);
});
