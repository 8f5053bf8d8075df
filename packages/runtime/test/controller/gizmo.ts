import { testCrd } from '@capstan/envtest';
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

/** Its CRD: spec.size and status.seen (a status subresource), as the types say. */
export const gizmoCrd = testCrd(GizmoType, {
  schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { size: { type: 'integer' } } },
      status: { type: 'object', properties: { seen: { type: 'integer' } } },
    },
  },
});
