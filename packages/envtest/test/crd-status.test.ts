import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { testCrd } from '../src/test-crd.js';
import { useControlPlane } from '../src/vitest/index.js';

const env = useControlPlane('envtest-crd');

const GADGET = {
  group: 'envtest.capstan.dev',
  version: 'v1',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
};
const crd = testCrd(GADGET, {
  schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { size: { type: 'integer' } } },
      status: { type: 'object', properties: { ready: { type: 'boolean' } } },
    },
  },
});

describe('a CRD and its status subresource', () => {
  it('installs the CRD and writes status only through /status', async () => {
    await env.plane.installCRDs([crd]);
    const api = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const ref = { group: 'envtest.capstan.dev', version: 'v1', namespace: env.namespace, plural: 'gadgets' };
    const created = (await api.createNamespacedCustomObject({
      ...ref,
      body: {
        apiVersion: 'envtest.capstan.dev/v1',
        kind: 'Gadget',
        metadata: { name: 'g' },
        spec: { size: 3 },
      },
    })) as { metadata: { generation: number; resourceVersion: string } };
    expect(created.metadata.generation).toBe(1);

    // A status written through the main resource is ignored by the server...
    const viaMain = (await api.replaceNamespacedCustomObject({
      ...ref,
      name: 'g',
      body: { ...created, status: { ready: true } },
    })) as { status?: unknown };
    expect(viaMain.status).toBeUndefined();

    // ...and taken through /status, without bumping the generation.
    const viaStatus = (await api.patchNamespacedCustomObjectStatus(
      { ...ref, name: 'g', body: { status: { ready: true } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as { status?: { ready?: boolean }; metadata: { generation: number } };
    expect(viaStatus.status).toEqual({ ready: true });
    expect(viaStatus.metadata.generation).toBe(1);
  });

  it('keeps x-kubernetes-* schema keys, and installing again replaces the CRD', async () => {
    const widgets = testCrd(
      { group: 'envtest.capstan.dev', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true },
      {
        status: false,
        schema: {
          type: 'object',
          properties: {
            spec: { type: 'object', properties: { budget: { 'x-kubernetes-int-or-string': true } } },
          },
        },
      },
    );

    await env.plane.installCRDs([widgets]);
    const api = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const ref = { group: 'envtest.capstan.dev', version: 'v1', namespace: env.namespace, plural: 'widgets' };
    for (const [name, budget] of [
      ['as-count', 2],
      ['as-percent', '25%'],
    ] as const) {
      const made = (await api.createNamespacedCustomObject({
        ...ref,
        body: { apiVersion: 'envtest.capstan.dev/v1', kind: 'Widget', metadata: { name }, spec: { budget } },
      })) as { spec: { budget: unknown } };
      expect(made.spec.budget).toEqual(budget);
    }

    widgets.metadata = { ...widgets.metadata, labels: { again: 'yes' } } as typeof widgets.metadata;
    await env.plane.installCRDs([widgets]);
    const apiext = (await env.kubeConfig
      .makeApiClient(ApiextensionsV1Api)
      .readCustomResourceDefinition({ name: 'widgets.envtest.capstan.dev' })) as {
      metadata?: { labels?: object };
    };
    expect(apiext.metadata?.labels).toEqual({ again: 'yes' });
  });
});
