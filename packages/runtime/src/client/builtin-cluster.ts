/**
 * Built-in cluster kinds (events.k8s.io, coordination.k8s.io, apiextensions.k8s.io,
 * rbac.authorization.k8s.io), declared once with {@link defineResource}.
 */

import { defineResource, type KubeObject } from '../api/types.js';
import type { LabelSelectorSpec, ObjectReference, StatusCondition } from './builtin.js';

/** Open shape for the parts of a spec or status not typed here. */
type Open = Record<string, unknown>;

// --- events.k8s.io/v1 ------------------------------------------------------------------------

/** An event (`events.k8s.io/v1`), with de-duplication into series. */
export interface Event extends KubeObject {
  eventTime: string;
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  note?: string;
  type?: 'Normal' | 'Warning';
  regarding?: ObjectReference;
  related?: ObjectReference;
  series?: { count: number; lastObservedTime: string };
}
/** Events (`events.k8s.io/v1`). */
export const Event = defineResource<Event>({
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
});

// --- coordination.k8s.io/v1 ------------------------------------------------------------------

/** A lease (`coordination.k8s.io/v1`), as used by leader election. */
export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    /** MicroTime: RFC 3339 with microseconds. */
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
    [field: string]: unknown;
  };
}
/** Leases. */
export const Lease = defineResource<Lease>({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
});
// --- apiextensions.k8s.io/v1 -----------------------------------------------------------------

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
// --- rbac.authorization.k8s.io/v1 ------------------------------------------------------------

/** One rule of a Role or ClusterRole. */
export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
  nonResourceURLs?: string[];
}

/** Who a binding grants to. */
export interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  name: string;
  namespace?: string;
  apiGroup?: string;
}

/** What a binding grants. */
export interface RoleRef {
  apiGroup: string;
  kind: 'Role' | 'ClusterRole';
  name: string;
}

/** A role (`rbac.authorization.k8s.io/v1`). */
export interface Role extends KubeObject {
  rules?: PolicyRule[];
}
/** Roles. */
export const Role = defineResource<Role>({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'Role',
  plural: 'roles',
  namespaced: true,
});

/** A role binding (`rbac.authorization.k8s.io/v1`). */
export interface RoleBinding extends KubeObject {
  roleRef: RoleRef;
  subjects?: Subject[];
}
/** RoleBindings. */
export const RoleBinding = defineResource<RoleBinding>({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'RoleBinding',
  plural: 'rolebindings',
  namespaced: true,
});

/** A cluster role (`rbac.authorization.k8s.io/v1`). */
export interface ClusterRole extends KubeObject {
  rules?: PolicyRule[];
  aggregationRule?: { clusterRoleSelectors?: LabelSelectorSpec[] };
}
/** ClusterRoles (cluster-scoped). */
export const ClusterRole = defineResource<ClusterRole>({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRole',
  plural: 'clusterroles',
  namespaced: false,
});

/** A cluster role binding (`rbac.authorization.k8s.io/v1`). */
export interface ClusterRoleBinding extends KubeObject {
  roleRef: RoleRef;
  subjects?: Subject[];
}
/** ClusterRoleBindings (cluster-scoped). */
export const ClusterRoleBinding = defineResource<ClusterRoleBinding>({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRoleBinding',
  plural: 'clusterrolebindings',
  namespaced: false,
});
