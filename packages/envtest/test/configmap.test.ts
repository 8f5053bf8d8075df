import { CoreV1Api, Watch } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { useControlPlane } from '../src/vitest/index.js';

const env = useControlPlane('envtest-cm');

describe('a ConfigMap through client-node on the shared control plane', () => {
  it('creates, gets, lists and watches', async () => {
    const api = env.kubeConfig.makeApiClient(CoreV1Api);
    const namespace = env.namespace;
    const created = await api.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'one', labels: { app: 'x' } }, data: { k: 'v' } },
    });
    expect(created.metadata?.uid).toBeTruthy();

    const got = await api.readNamespacedConfigMap({ namespace, name: 'one' });
    expect(got.data).toEqual({ k: 'v' });

    const listed = await api.listNamespacedConfigMap({ namespace, labelSelector: 'app=x' });
    expect(listed.items.map((c) => c.metadata?.name)).toEqual(['one']);

    const seen: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const watch = new Watch(env.kubeConfig);
      void watch
        .watch(
          `/api/v1/namespaces/${namespace}/configmaps`,
          { resourceVersion: listed.metadata?.resourceVersion },
          (type, obj) => {
            seen.push(`${type} ${obj.metadata.name} ${obj.data?.k ?? ''}`);
            if (type === 'DELETED') resolve();
          },
          (err) => err && reject(err),
        )
        .then(async (req) => {
          await api.replaceNamespacedConfigMap({
            namespace,
            name: 'one',
            body: { ...got, data: { k: 'w' } },
          });
          await api.deleteNamespacedConfigMap({ namespace, name: 'one' });
          await done;
          req.abort();
        });
    });
    await done;
    expect(seen).toEqual(['MODIFIED one w', 'DELETED one w']);
  });
});
