import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { useControlPlane } from '../src/vitest/index.js';

const env = useControlPlane('envtest-rbac');

describe('RBAC on the real apiserver', () => {
  it('forbids a non-admin user until a Role is bound, then allows', async () => {
    const namespace = env.namespace;
    const alice = (await env.plane.userKubeConfig('alice', ['readers'])).makeApiClient(CoreV1Api);
    const denied = await alice.listNamespacedConfigMap({ namespace }).then(
      () => 'allowed',
      (err: { code?: number }) => err.code,
    );
    expect(denied).toBe(403);

    const rbac = env.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace,
      body: {
        metadata: { name: 'cm-reader' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: 'readers' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'readers' }],
      },
    });
    // RBAC bindings reach the authorizer through its informer: allow a moment.
    let list: Awaited<ReturnType<CoreV1Api['listNamespacedConfigMap']>> | undefined;
    for (let i = 0; i < 50 && !list; i++) {
      list = await alice.listNamespacedConfigMap({ namespace }).catch(() => undefined);
      if (!list) await new Promise((r) => setTimeout(r, 100));
    }
    expect(list?.items).toBeInstanceOf(Array);
    // Still only what the Role says: no writes.
    const write = await alice
      .createNamespacedConfigMap({ namespace, body: { metadata: { name: 'nope' } } })
      .then(
        () => 'allowed',
        (err: { code?: number }) => err.code,
      );
    expect(write).toBe(403);
  });

  it('authenticates a service account so that a binding to the ServiceAccount subject applies', async () => {
    const namespace = env.namespace;
    const core = env.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'robot' } } });
    const rbac = env.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace,
      body: {
        metadata: { name: 'secret-lister' },
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: 'robot' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'secret-lister' },
        subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace }],
      },
    });
    const robot = (await env.plane.serviceAccountKubeConfig(namespace, 'robot')).makeApiClient(CoreV1Api);
    let list: Awaited<ReturnType<CoreV1Api['listNamespacedSecret']>> | undefined;
    for (let i = 0; i < 50 && !list; i++) {
      list = await robot.listNamespacedSecret({ namespace }).catch(() => undefined);
      if (!list) await new Promise((r) => setTimeout(r, 100));
    }
    expect(list?.items).toBeInstanceOf(Array);
    // Another service account of the same namespace gets nothing from that binding.
    const other = (await env.plane.serviceAccountKubeConfig(namespace, 'other')).makeApiClient(CoreV1Api);
    const denied = await other.listNamespacedSecret({ namespace }).then(
      () => 'allowed',
      (err: { code?: number }) => err.code,
    );
    expect(denied).toBe(403);
  });
});
