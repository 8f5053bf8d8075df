/**
 * A controller started before its CRD exists, against the real apiserver: the manager starts
 * anyway (readyz says which kind it waits for), the controller runs once the CRD is installed,
 * waits again when the CRD is deleted, and the manager stops cleanly. No process restart.
 */
import { useControlPlane } from '@capstan/envtest/vitest';
import { ApiextensionsV1Api } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { Client, defineResource, HttpTransport, type KubeObject } from '../../src/client/index.js';
import { Manager } from '../../src/manager/index.js';
import { eventually } from '../../src/testing/index.js';

const env = useControlPlane('follow-crd');

const Follower = defineResource<KubeObject>({
  group: 'follow.capstan.dev',
  version: 'v1',
  kind: 'Follower',
  plural: 'followers',
  namespaced: true,
});
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'followers.follow.capstan.dev' },
  spec: {
    group: 'follow.capstan.dev',
    scope: 'Namespaced',
    names: { plural: 'followers', singular: 'follower', kind: 'Follower', listKind: 'FollowerList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

async function readyz(port: number): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz?verbose`);
  return { status: res.status, text: await res.text() };
}

it('waits for its CRD, runs once it is installed, waits again once it is deleted', async () => {
  const reconciled: string[] = [];
  const manager = Manager.create({
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    logLevel: 'silent',
    metricsBindAddress: '0',
    healthProbeBindAddress: '127.0.0.1:0',
    cacheSyncTimeoutMs: 3_000,
  });
  manager
    .controllerBuilder()
    .for(Follower)
    .build(async (request) => {
      reconciled.push(request.name);
      return {};
    });
  const stop = new AbortController();
  let settled = false;
  const done = manager.start(stop.signal).finally(() => {
    settled = true;
  });
  try {
    await eventually(() => expect(manager.listening.probes).toBeGreaterThan(0));
    const port = manager.listening.probes as number;
    await eventually(async () => {
      const ready = await readyz(port);
      expect(ready.status).toBe(503);
      expect(ready.text).toMatch(/not served \(CRD not installed\?\): followers/);
      return true;
    });
    // Past the 3 s cache sync timeout: the manager still runs.
    await new Promise((r) => setTimeout(r, 3_500));
    expect(settled).toBe(false);

    await env.plane.installCRDs([crd]);
    const client = new Client(new HttpTransport(env.kubeConfig));
    await client.create(Follower, {
      apiVersion: 'follow.capstan.dev/v1',
      kind: 'Follower',
      metadata: { name: 'first', namespace: env.namespace },
    });
    await eventually(() => expect(reconciled).toContain('first'), { timeoutMs: 15_000 });
    await eventually(async () => expect((await readyz(port)).status).toBe(200));

    await env.kubeConfig
      .makeApiClient(ApiextensionsV1Api)
      .deleteCustomResourceDefinition({ name: 'followers.follow.capstan.dev' });
    await eventually(async () => expect((await readyz(port)).text).toMatch(/not served/), {
      timeoutMs: 30_000,
    });
    expect(settled).toBe(false);
  } finally {
    stop.abort();
    await done;
  }
}, 120_000);
