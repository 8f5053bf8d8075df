/**
 * The kinds a stack's manifests may hold, by `apiVersion/kind`. A manifest of any other kind is
 * refused (the operator's RBAC covers exactly these).
 */
import { apiVersionOf, defineResource, type KubeObject, type ResourceType } from '@capstan/runtime';
import {
  ClusterRole,
  ClusterRoleBinding,
  CustomResourceDefinition,
  DaemonSet,
  Deployment,
  Namespace,
  Role,
  RoleBinding,
  ServiceAccount,
} from '@capstan/runtime/client';

const Service = defineResource<KubeObject>({
  group: '',
  version: 'v1',
  kind: 'Service',
  plural: 'services',
  namespaced: true,
});

const admission = (kind: string, plural: string) =>
  defineResource<KubeObject>({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind,
    plural,
    namespaced: false,
  });

/** The kinds a stack may hold, in apply order: what the operator writes (and its RBAC grants). */
export const STACK_KINDS: ReadonlyArray<ResourceType<KubeObject>> = [
  Namespace,
  CustomResourceDefinition,
  ServiceAccount,
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
  Service,
  admission('ValidatingAdmissionPolicy', 'validatingadmissionpolicies'),
  admission('ValidatingAdmissionPolicyBinding', 'validatingadmissionpolicybindings'),
  Deployment,
  DaemonSet,
] as ReadonlyArray<ResourceType<KubeObject>>;

const BY_KEY = new Map(STACK_KINDS.map((t) => [`${apiVersionOf(t)}/${t.kind}`, t]));

/** The resource type of a manifest's `apiVersion` and `kind`, or undefined for one not supported. */
export function kindOf(apiVersion: string, kind: string): ResourceType<KubeObject> | undefined {
  return BY_KEY.get(`${apiVersion}/${kind}`);
}

/**
 * The kinds the operator deletes (pruning, or with its stack), in the order deletion goes:
 * workloads first (agents, then the coordinator), the CRD last. Never the namespace: it is shared
 * (the version operator itself may run there), so it is applied but left in place.
 */
export const DELETION_ORDER: ReadonlyArray<ResourceType<KubeObject>> = [...STACK_KINDS]
  .reverse()
  .filter((t) => t !== Namespace);

/** Where a kind goes in apply order (what others need first: namespace, CRD, identities, RBAC). */
export function applyRank(kind: string): number {
  const rank = STACK_KINDS.findIndex((t) => t.kind === kind);
  return rank < 0 ? STACK_KINDS.length : rank;
}
