import { AuthenticationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { podBoundKubeConfig } from '../src/tokens.js';
import { useControlPlane } from '../src/vitest/index.js';

const env = useControlPlane('envtest-tokens');

describe('podBoundKubeConfig', () => {
  it('authenticates as the service account, names the pod and its node, and dies with the pod', async () => {
    const namespace = env.namespace;
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    const node = `${namespace}-node`;
    await core.createNode({ body: { metadata: { name: node } } });
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'worker' } } });
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: 'worker-0' },
        spec: {
          nodeName: node,
          serviceAccountName: 'worker',
          containers: [{ name: 'c', image: 'example/c' }],
        },
      },
    });
    try {
      const kc = await podBoundKubeConfig(env.kubeConfig, namespace, 'worker', 'worker-0');
      const review = await kc.makeApiClient(AuthenticationV1Api).createSelfSubjectReview({ body: {} });
      const user = review.status?.userInfo;
      expect(user?.username).toBe(`system:serviceaccount:${namespace}:worker`);
      expect(user?.extra?.['authentication.kubernetes.io/node-name']).toEqual([node]);
      expect(user?.extra?.['authentication.kubernetes.io/pod-name']).toEqual(['worker-0']);

      await core.deleteNamespacedPod({ namespace, name: 'worker-0', gracePeriodSeconds: 0 });
      let code: number | undefined;
      // The API server caches a token's authentication for about ten seconds.
      for (let i = 0; i < 300 && code === undefined; i++) {
        code = await kc
          .makeApiClient(AuthenticationV1Api)
          .createSelfSubjectReview({ body: {} })
          .then(
            () => undefined,
            (err: { code?: number }) => err.code,
          );
        if (code === undefined) await new Promise((r) => setTimeout(r, 100));
      }
      expect(code).toBe(401);
    } finally {
      await core.deleteNode({ name: node }).catch(() => {});
    }
  }, 60_000);

  it('fails clearly for a pod that does not exist', async () => {
    await expect(
      podBoundKubeConfig(env.kubeConfig, env.namespace, 'default', 'missing'),
    ).rejects.toMatchObject({
      code: 404,
    });
  });
});
