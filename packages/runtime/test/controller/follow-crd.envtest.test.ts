/**
 * A controller started before its CRD exists, against the real apiserver: the manager starts
 * anyway (readyz says which kind it waits for), the controller runs once the CRD is installed;
 * when the CRD is deleted its informer stops (cache emptied, no watch failing over and over in
 * the log) and readyz says why; when the CRD comes back it runs again. No process restart.
 */
import { testCrd } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { ApiextensionsV1Api } from '@kubernetes/client-node';
import { expect, it } from 'vitest';
import { Client, defineResource, HttpTransport, type KubeObject } from '../../src/client/index.js';
import { createLogger, Manager } from '../../src/manager/index.js';
import { eventually } from '../../src/testing/index.js';

const env = useControlPlane('follow-crd');

const Follower = defineResource<KubeObject>({
  group: 'follow.capstan.dev',
  version: 'v1',
  kind: 'Follower',
  plural: 'followers',
  namespaced: true,
});
const crd = testCrd(Follower, { status: false });

async function readyz(port: number): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz?verbose`);
  return { status: res.status, text: await res.text() };
}

it('waits for its CRD, runs once it is installed, stops when it is deleted, runs when it is back', async () => {
  const reconciled: string[] = [];
  const lines: Array<{ msg?: string; resource?: string; level?: string }> = [];
  const logger = createLogger({ level: 'debug', destination: { write: (l) => lines.push(JSON.parse(l)) } });
  const manager = Manager.create({
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    logger,
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

    const client = new Client(new HttpTransport(env.kubeConfig));
    /** Installs the CRD, creates a Follower, and waits for its reconcile and a ready manager. */
    const installAndReconcile = async (name: string) => {
      await env.plane.installCRDs([crd]);
      await client.create(Follower, {
        apiVersion: 'follow.capstan.dev/v1',
        kind: 'Follower',
        metadata: { name, namespace: env.namespace },
      });
      await eventually(() => expect(reconciled).toContain(name), { timeoutMs: 15_000 });
      await eventually(async () => expect((await readyz(port)).status).toBe(200));
    };
    await installAndReconcile('first');

    const deletedAt = lines.length;
    await env.kubeConfig
      .makeApiClient(ApiextensionsV1Api)
      .deleteCustomResourceDefinition({ name: 'followers.follow.capstan.dev' });
    await eventually(async () => expect((await readyz(port)).text).toMatch(/not served/), {
      timeoutMs: 30_000,
    });
    expect(manager.cache.list(Follower)).toEqual([]);
    // Stopped, not failing: over the next 6 s (three retries' worth) one line saying the informer
    // stopped, not a warning per retry.
    await new Promise((r) => setTimeout(r, 6_000));
    const about = (from: number) => lines.slice(from).filter((l) => l.resource === 'followers');
    expect(about(deletedAt).map((l) => `${l.level} ${l.msg}`)).toEqual([
      'info kind not served (CRD not installed, or deleted): informer stopped until it is',
    ]);
    expect(settled).toBe(false);
    const reinstalledAt = lines.length;

    await installAndReconcile('second');
    expect(about(reinstalledAt).map((l) => `${l.level} ${l.msg}`)).toEqual([
      'info kind served again: informer started',
    ]);
    expect(settled).toBe(false);
  } finally {
    stop.abort();
    await done;
  }
}, 120_000);
