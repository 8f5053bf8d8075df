import type { V1CustomResourceDefinition } from '@kubernetes/client-node';
import { defineResource, type KubeObject } from '../../src/client/index.js';

/** A small CRD for controller tests: spec.size, status.seen. */
export interface Gizmo extends KubeObject {
  spec?: { size?: number };
  status?: { seen?: number };
}

export const GizmoType = defineResource<Gizmo>({
  group: 'test.capstan.dev',
  version: 'v1',
  kind: 'Gizmo',
  plural: 'gizmos',
  namespaced: true,
});

export const gizmoCrd: V1CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gizmos.test.capstan.dev' },
  spec: {
    group: 'test.capstan.dev',
    scope: 'Namespaced',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' } } },
              status: { type: 'object', properties: { seen: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
};
