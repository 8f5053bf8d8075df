/** The custom resource definition kind (`apiextensions.k8s.io/v1`): not in k8s.io/api, so typed here. */

import { defineResource, type KubeObject } from '../api/types.js';

/** Open shape for the parts of a spec or status not typed here. */
type Open = Record<string, unknown>;

/** A condition of a built-in kind (pod, node, deployment): `metav1.Condition` with optional fields. */
export interface StatusCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
  [field: string]: unknown;
}

/** A custom resource definition (`apiextensions.k8s.io/v1`). */
export interface CustomResourceDefinition extends KubeObject {
  spec: {
    group: string;
    names: { kind: string; plural: string; singular?: string; listKind?: string; shortNames?: string[] };
    scope: 'Namespaced' | 'Cluster';
    versions: Array<{
      name: string;
      served: boolean;
      storage: boolean;
      schema?: { openAPIV3Schema: Open };
      subresources?: { status?: Open; scale?: Open };
      [field: string]: unknown;
    }>;
    [field: string]: unknown;
  };
  status?: { conditions?: StatusCondition[]; acceptedNames?: Open; storedVersions?: string[] };
}
/** CustomResourceDefinitions (cluster-scoped). */
export const CustomResourceDefinition = defineResource<CustomResourceDefinition>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
});
