import { defineResource, type KubeObject, type UnstructuredObject } from '../../src/api/types.js';

export interface Widget extends KubeObject {
  spec?: { size?: number; color?: string; items?: string[] };
  status?: { ready?: boolean; observed?: number };
}

/** A namespaced custom kind (status subresource by default). */
export const Widget = defineResource<Widget>({
  group: 'example.dev',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});

/** A built-in kind without a status subresource. */
export const ConfigMap = defineResource<UnstructuredObject>({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
});

/** A cluster-scoped kind. */
export const Node = defineResource<UnstructuredObject>({
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  namespaced: false,
});

export function widget(name: string, namespace = 'default', extra: Partial<Widget> = {}): Widget {
  return {
    apiVersion: 'example.dev/v1',
    kind: 'Widget',
    metadata: { name, namespace },
    spec: { size: 1 },
    ...extra,
  };
}
