/**
 * CRD conversion with the real API server calling our server: Beacon v1alpha1 and v1 served, v1
 * stored, every conversion done by the manager's webhook server on /convert.
 */

import type { WebhookInstallation } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { Client, Manager } from '@capstan/runtime';
import { HttpTransport } from '@capstan/runtime/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BeaconV1alpha1Type,
  BeaconV1Type,
  beaconConversion,
  beaconCrd,
  PROTOCOL_ANNOTATION,
} from './beacon.js';

const env = useControlPlane('conversion');
let hooks: WebhookInstallation;
let client: Client;
let manager: Manager;
const stop = new AbortController();
let running: Promise<void>;

beforeAll(async () => {
  hooks = await env.plane.installWebhooks({ crds: [beaconCrd] });
  manager = Manager.create({
    kubeConfig: env.kubeConfig,
    metricsBindAddress: '127.0.0.1:0',
    healthProbeBindAddress: '127.0.0.1:0',
    logLevel: 'silent',
    webhook: { host: hooks.host, port: hooks.port, certDir: hooks.certDir },
  });
  manager.webhooks.addConversion(beaconConversion);
  running = manager.start(stop.signal);
  client = new Client(new HttpTransport(env.kubeConfig));
});
afterAll(async () => {
  stop.abort();
  await running;
  await hooks?.uninstall();
});

describe('conversion through the webhook server', () => {
  it('stores a v1alpha1 object as v1 and serves it in both versions', async () => {
    const key = { namespace: env.namespace, name: 'old-style' };
    await client.create(BeaconV1alpha1Type, { metadata: key, spec: { host: 'a.example', port: 80 } });
    const asV1 = await client.get(BeaconV1Type, key);
    expect(asV1.apiVersion).toBe('conversion.test.capstan.dev/v1');
    expect(asV1.spec).toEqual({ address: { host: 'a.example', port: 80 } });
    const asV1alpha1 = await client.get(BeaconV1alpha1Type, key);
    expect(asV1alpha1.spec).toEqual({ host: 'a.example', port: 80 });
  });

  it('keeps a v1-only field through a read and write in v1alpha1', async () => {
    const key = { namespace: env.namespace, name: 'new-style' };
    await client.create(BeaconV1Type, {
      metadata: key,
      spec: { address: { host: 'b.example', port: 53 }, protocol: 'udp' },
    });
    const old = await client.get(BeaconV1alpha1Type, key);
    expect(old.spec).toEqual({ host: 'b.example', port: 53 });
    expect(old.metadata.annotations?.[PROTOCOL_ANNOTATION]).toBe('udp');
    await client.update(BeaconV1alpha1Type, { ...old, spec: { ...old.spec, port: 5353 } });
    const stored = await client.get(BeaconV1Type, key);
    expect(stored.spec).toEqual({ address: { host: 'b.example', port: 5353 }, protocol: 'udp' });
    expect(stored.metadata.annotations?.[PROTOCOL_ANNOTATION]).toBeUndefined();
  });

  it('converts lists, and counts the conversions on /metrics', async () => {
    const list = await client.list(BeaconV1alpha1Type, { namespace: env.namespace });
    expect(list.items.map((b) => [b.metadata.name, b.spec.port]).sort()).toEqual([
      ['new-style', 5353],
      ['old-style', 80],
    ]);
    const text = await (await fetch(`http://127.0.0.1:${manager.listening.metrics}/metrics`)).text();
    expect(text).toMatch(
      /^controller_runtime_webhook_requests_total\{webhook="\/convert",code="200"\} [1-9]/m,
    );
    expect((await fetch(`http://127.0.0.1:${manager.listening.probes}/readyz?verbose`)).status).toBe(200);
  });
});
