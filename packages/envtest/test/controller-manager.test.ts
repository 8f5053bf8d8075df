import { AppsV1Api, CoreV1Api, PolicyV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { useControlPlane } from '../src/vitest/index.js';

const env = useControlPlane('envtest-kcm');

async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('kube-controller-manager in the shared control plane', () => {
  it('garbage-collects the dependents of a deleted owner', async () => {
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const namespace = env.namespace;
    const owner = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'owner' } } });
    await core.createNamespacedConfigMap({
      namespace,
      body: {
        metadata: {
          name: 'dependent',
          ownerReferences: [
            { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata?.uid as string },
          ],
        },
      },
    });
    await core.deleteNamespacedConfigMap({ namespace, name: 'owner', propagationPolicy: 'Background' });
    const gone = await eventually(async () =>
      core.readNamespacedConfigMap({ namespace, name: 'dependent' }).then(
        () => undefined,
        (err: { code?: number }) => (err.code === 404 ? true : undefined),
      ),
    );
    expect(gone).toBe(true);
  });

  it('gives a PodDisruptionBudget its status, and a Deployment its ReplicaSet and Pods', async () => {
    const namespace = env.namespace;
    const labels = { app: 'web' };
    await env.kubeConfig.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: 'c', image: 'example.invalid/none' }] },
          },
        },
      },
    });
    const policy = env.kubeConfig.makeApiClient(PolicyV1Api);
    await policy.createNamespacedPodDisruptionBudget({
      namespace,
      body: { metadata: { name: 'web' }, spec: { minAvailable: 1, selector: { matchLabels: labels } } },
    });
    const pods = await eventually(async () => {
      const list = await env.kubeConfig
        .makeApiClient(CoreV1Api)
        .listNamespacedPod({ namespace, labelSelector: 'app=web' });
      return list.items.length === 2 ? list.items : undefined;
    });
    expect(pods).toHaveLength(2);
    const status = await eventually(async () => {
      const pdb = await policy.readNamespacedPodDisruptionBudget({ namespace, name: 'web' });
      // The disruption controller may first report before both pods exist: wait for its settled view.
      return pdb.status?.observedGeneration && pdb.status.expectedPods === 2 ? pdb.status : undefined;
    });
    // No kubelet runs the pods, so none is healthy and no disruption is allowed.
    expect(status.expectedPods).toBe(2);
    expect(status.currentHealthy).toBe(0);
    expect(status.disruptionsAllowed).toBe(0);
  });
});
