import { existsSync } from 'node:fs';
import { CoreV1Api, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlane } from '../src/index.js';

// These tests restart and compact, so they run a control plane of their own.
let plane: ControlPlane;
beforeAll(async () => {
  plane = await ControlPlane.start();
});
afterAll(async () => {
  await plane?.stop();
});

const namespace = 'default';

/** Opens a watch from `resourceVersion` and collects events until `until` says stop. */
function watchFrom(
  resourceVersion: string,
  until: (
    events: Array<{ type: string; object: { metadata?: { name?: string }; code?: number } }>,
  ) => boolean,
) {
  const events: Array<{ type: string; object: { metadata?: { name?: string }; code?: number } }> = [];
  return new Promise<typeof events>((resolve, reject) => {
    let req: AbortController | undefined;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      resolve(events);
      // Abort outside client-node's line callback, which would otherwise see its own abort as an error.
      setImmediate(() => req?.abort());
    };
    new Watch(plane.kubeConfig)
      .watch(
        `/api/v1/namespaces/${namespace}/configmaps`,
        { resourceVersion },
        (type, object) => {
          events.push({ type, object });
          if (until(events)) finish();
        },
        (err) => (err && !finished ? reject(err) : finish()),
      )
      .then((r) => {
        req = r;
      }, reject);
  });
}

describe('a control plane of its own', () => {
  it('keeps its data across restartApiServer, and a watch resumes from its last resourceVersion', async () => {
    const api = plane.kubeConfig.makeApiClient(CoreV1Api);
    const before = await api.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'kept' } } });
    const lastSeen = before.metadata?.resourceVersion as string;

    await plane.restartApiServer();

    const api2 = plane.kubeConfig.makeApiClient(CoreV1Api);
    const after = await api2.readNamespacedConfigMap({ namespace, name: 'kept' });
    expect(after.metadata?.uid).toBe(before.metadata?.uid);

    const resumed = watchFrom(lastSeen, (events) => events.some((e) => e.object.metadata?.name === 'later'));
    await api2.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'later' } } });
    const events = await resumed;
    // Nothing before lastSeen is replayed; the change made after the restart arrives.
    expect(events.map((e) => `${e.type} ${e.object.metadata?.name}`)).toEqual(['ADDED later']);
  });

  it('answers 410 Gone to a watch from a resourceVersion older than compact()', async () => {
    const api = plane.kubeConfig.makeApiClient(CoreV1Api);
    const old = await api.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'old' } } });
    await api.replaceNamespacedConfigMap({
      namespace,
      name: 'old',
      body: { metadata: { name: 'old', resourceVersion: old.metadata?.resourceVersion }, data: { a: 'b' } },
    });
    const revision = await plane.compact();
    expect(revision).toBeGreaterThan(0);

    const events = await watchFrom(old.metadata?.resourceVersion as string, (e) => e.length > 0);
    expect(events[0]?.type, JSON.stringify(events[0])).toBe('ERROR');
    expect(events[0]?.object.code, JSON.stringify(events[0])).toBe(410);
  });

  it('leaves no etcd or kube-apiserver process after stop()', async () => {
    const other = await ControlPlane.start();
    const pids = other.pids;
    expect(pids.length).toBe(2);
    expect(pids.every((pid) => existsSync(`/proc/${pid}`))).toBe(true);
    await other.stop();
    // A zombie would still have /proc/<pid>; the children are reaped, so the entries are gone.
    expect(pids.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]);
  });
});
