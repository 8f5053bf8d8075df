/**
 * withFinalizer against the real API server: the finalizer is on before `apply` runs, even when
 * another writer changes the list between the read and the add (an injected conflict), and a
 * process stopped in the middle of `cleanup` leaves the finalizer on, so the next process cleans
 * up and only then lets the object go.
 */
import { useControlPlane } from '@capstan/envtest/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { isNotFound } from '../../src/api/errors.js';
import { Client, ConfigMap, HttpTransport } from '../../src/client/index.js';
import { hasFinalizer, withFinalizer } from '../../src/helpers/index.js';
import { Manager } from '../../src/manager/index.js';
import { eventually } from '../../src/testing/index.js';
import type { ApiTransport } from '../../src/transport/transport.js';

const env = useControlPlane('finalizer-lifecycle');
const FINALIZER = 'test.capstan.dev/cleanup';
const OTHER = 'other.capstan.dev/keep';
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** A transport whose first JSON patch is preceded by another writer adding its own finalizer. */
function conflictingTransport(inner: ApiTransport, log: string[]): ApiTransport {
  let injected = false;
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop !== 'patch') return Reflect.get(target, prop, receiver);
      const patch: ApiTransport['patch'] = async (type, key, patchType, body, options) => {
        if (!injected && patchType === 'json') {
          injected = true;
          const now = await inner.get(type, key);
          const finalizers = [...(now.metadata.finalizers ?? []), OTHER];
          await inner.patch(type, key, 'merge', { metadata: { finalizers } });
          log.push('conflict injected');
        }
        return inner.patch(type, key, patchType, body, options);
      };
      return patch;
    },
  });
}

/** Starts a manager whose controller keeps FINALIZER on ConfigMaps labelled for this test. */
function startManager(transport: ApiTransport, handlers: Parameters<typeof withFinalizer<ConfigMap>>[3]) {
  const manager = Manager.create({
    transport,
    namespace: env.namespace,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logLevel: 'silent',
    gracefulShutdownTimeoutMs: 5_000,
  });
  manager
    .controllerBuilder()
    .for(ConfigMap, { labelSelector: 'test=finalizer-lifecycle' })
    .buildObjects(withFinalizer(manager.client, ConfigMap, FINALIZER, handlers));
  const stop = new AbortController();
  const running = manager.start(stop.signal);
  const halt = async () => {
    stop.abort();
    await running;
  };
  stops.push(halt);
  return halt;
}

describe('withFinalizer on the real API server', () => {
  it('adds the finalizer through a conflict, and cleans up across a restart before letting go', async () => {
    const admin = new Client(new HttpTransport(env.kubeConfig));
    const log: string[] = [];
    const external = new Set<string>();
    const key = { namespace: env.namespace, name: 'bucket' };
    const http = new HttpTransport(env.kubeConfig);

    // First process: apply makes the external thing; cleanup starts, then the process stops under it.
    let cleanupStarted = false;
    const haltFirst = startManager(conflictingTransport(http, log), {
      apply: async (cm) => {
        if (!hasFinalizer(cm, FINALIZER)) log.push('apply without the finalizer');
        external.add(cm.metadata.name as string);
      },
      cleanup: async (_cm, { signal }) => {
        cleanupStarted = true;
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        throw new Error('stopped during cleanup');
      },
    });
    await admin.create(ConfigMap, { metadata: { ...key, labels: { test: 'finalizer-lifecycle' } } });
    await eventually(() => (external.has('bucket') ? true : undefined), { timeoutMs: 20_000 });
    const applied = await admin.get(ConfigMap, key);
    expect(log).toEqual(['conflict injected']);
    expect([...(applied.metadata.finalizers ?? [])].sort()).toEqual([OTHER, FINALIZER].sort());

    await admin.patch(ConfigMap, key, 'merge', { metadata: { finalizers: [FINALIZER] } });
    await admin.delete(ConfigMap, key);
    await eventually(() => (cleanupStarted ? true : undefined), { timeoutMs: 20_000 });
    await haltFirst();
    const afterCrash = await admin.get(ConfigMap, key);
    expect(afterCrash.metadata.deletionTimestamp).toBeDefined();
    expect(afterCrash.metadata.finalizers).toEqual([FINALIZER]);
    expect(external.has('bucket')).toBe(true);

    // Second process: cleanup succeeds, so the finalizer goes and the server deletes the object.
    startManager(new HttpTransport(env.kubeConfig), {
      apply: async () => {
        log.push('apply on a deleting object');
      },
      cleanup: async (cm) => {
        external.delete(cm.metadata.name as string);
      },
    });
    await eventually(
      async () => {
        try {
          await admin.get(ConfigMap, key);
          return undefined;
        } catch (err) {
          if (isNotFound(err)) return true;
          throw err;
        }
      },
      { timeoutMs: 20_000, what: 'the ConfigMap deleted once cleanup succeeded' },
    );
    expect(external.has('bucket')).toBe(false);
    expect(log).toEqual(['conflict injected']);
  }, 90_000);

  it('leaves an object deleted before the finalizer was added alone', async () => {
    const admin = new Client(new HttpTransport(env.kubeConfig));
    const calls: string[] = [];
    const key = { namespace: env.namespace, name: 'never-applied' };
    // Another finalizer holds it in deletion; ours was never on it.
    await admin.create(ConfigMap, {
      metadata: { ...key, labels: { test: 'finalizer-lifecycle' }, finalizers: [OTHER] },
    });
    await admin.delete(ConfigMap, key);
    startManager(new HttpTransport(env.kubeConfig), {
      apply: async (cm) => {
        calls.push(`apply ${cm.metadata.name}`);
      },
      cleanup: async (cm) => {
        calls.push(`cleanup ${cm.metadata.name}`);
      },
    });
    // The manager has synced and reconciled it: a second object shows the controller is running.
    const probe = { namespace: env.namespace, name: 'probe' };
    await admin.create(ConfigMap, { metadata: { ...probe, labels: { test: 'finalizer-lifecycle' } } });
    await eventually(async () => (calls.includes('apply probe') ? true : undefined), { timeoutMs: 20_000 });
    expect(new Set(calls)).toEqual(new Set(['apply probe']));
    expect((await admin.get(ConfigMap, key)).metadata.finalizers).toEqual([OTHER]);
    await admin.patch(ConfigMap, key, 'merge', { metadata: { finalizers: null } });
    for (const stop of stops.splice(0)) await stop();
    await admin.patch(ConfigMap, probe, 'merge', { metadata: { finalizers: null } });
  }, 60_000);
});
