/**
 * Built-in kinds the runtime and the operators use, each declared once with {@link defineResource}.
 *
 * The interfaces type the fields the runtime reads and leave the rest open (every object keeps its
 * index signature), rather than mirroring the full OpenAPI schema: client-node's model classes have
 * an optional `metadata` and so do not fit {@link KubeObject}.
 */
import { defineResource, type KubeObject, type ObjectMeta } from './types.js';

/** Open shape for the parts of a spec or status not typed here. */
type Open = Record<string, unknown>;

/** A label selector, as in `metav1.LabelSelector` (named apart from the parsed selectors of selectors.ts). */
export interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{
    key: string;
    operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    values?: string[];
  }>;
}

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

/** A reference to an object, as in `v1.ObjectReference`. */
export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** A taint, as in `v1.Taint`. */
export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  timeAdded?: string;
}

/** A container, with the fields the runtime reads typed. */
export interface Container {
  name: string;
  image?: string;
  [field: string]: unknown;
}

/** A pod template, as in `v1.PodTemplateSpec`. */
export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec?: PodSpec;
}

// --- core/v1 ---------------------------------------------------------------------------------

/** A namespace (`v1`). */
export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: 'Active' | 'Terminating'; conditions?: StatusCondition[] };
}
/** Namespaces (cluster-scoped). */
export const Namespace = defineResource<Namespace>({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
});

/** A config map (`v1`). */
export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  immutable?: boolean;
}
/** ConfigMaps. */
export const ConfigMap = defineResource<ConfigMap>({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
});

/** A secret (`v1`); `data` values are base64. */
export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  immutable?: boolean;
}
/** Secrets. */
export const Secret = defineResource<Secret>({
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
});

/** A pod's spec, with the fields the runtime reads typed. */
export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  serviceAccountName?: string;
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  terminationGracePeriodSeconds?: number;
  tolerations?: Array<{ key?: string; operator?: string; value?: string; effect?: string }>;
  [field: string]: unknown;
}

/** A pod (`v1`). */
export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: {
    phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';
    conditions?: StatusCondition[];
    podIP?: string;
    hostIP?: string;
    startTime?: string;
    [field: string]: unknown;
  };
}
/** Pods. */
export const Pod = defineResource<Pod>({
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  namespaced: true,
});

/** A node (`v1`). */
export interface Node extends KubeObject {
  spec?: {
    unschedulable?: boolean;
    taints?: Taint[];
    podCIDR?: string;
    providerID?: string;
    [field: string]: unknown;
  };
  status?: {
    conditions?: StatusCondition[];
    addresses?: Array<{ type: string; address: string }>;
    nodeInfo?: { bootID?: string; osImage?: string; kernelVersion?: string; kubeletVersion?: string } & Open;
    [field: string]: unknown;
  };
}
/** Nodes (cluster-scoped). */
export const Node = defineResource<Node>({
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  namespaced: false,
});

/** A core event (`v1` Event): the older API; prefer {@link Event}. */
export interface CoreEvent extends KubeObject {
  involvedObject: ObjectReference;
  reason?: string;
  message?: string;
  type?: 'Normal' | 'Warning';
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  source?: { component?: string; host?: string };
}
/** Core events (`v1`). */
export const CoreEvent = defineResource<CoreEvent>({
  group: '',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
});

/** A service account (`v1`). */
export interface ServiceAccount extends KubeObject {
  secrets?: ObjectReference[];
  imagePullSecrets?: Array<{ name: string }>;
  automountServiceAccountToken?: boolean;
}
/** ServiceAccounts. */
export const ServiceAccount = defineResource<ServiceAccount>({
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  namespaced: true,
});

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

// --- apps/v1 ---------------------------------------------------------------------------------

/** A deployment (`apps/v1`). */
export interface Deployment extends KubeObject {
  spec?: {
    replicas?: number;
    selector: LabelSelectorSpec;
    template: PodTemplateSpec;
    [field: string]: unknown;
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    updatedReplicas?: number;
    conditions?: StatusCondition[];
    [field: string]: unknown;
  };
}
/** Deployments. */
export const Deployment = defineResource<Deployment>({
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  plural: 'deployments',
  namespaced: true,
});

/** A replica set (`apps/v1`). */
export interface ReplicaSet extends KubeObject {
  spec?: {
    replicas?: number;
    selector: LabelSelectorSpec;
    template?: PodTemplateSpec;
    [field: string]: unknown;
  };
  status?: {
    replicas: number;
    readyReplicas?: number;
    availableReplicas?: number;
    observedGeneration?: number;
  } & Open;
}
/** ReplicaSets. */
export const ReplicaSet = defineResource<ReplicaSet>({
  group: 'apps',
  version: 'v1',
  kind: 'ReplicaSet',
  plural: 'replicasets',
  namespaced: true,
});

/** A daemon set (`apps/v1`). */
export interface DaemonSet extends KubeObject {
  spec?: { selector: LabelSelectorSpec; template: PodTemplateSpec; [field: string]: unknown };
  status?: {
    desiredNumberScheduled: number;
    currentNumberScheduled: number;
    numberReady: number;
    numberMisscheduled: number;
    updatedNumberScheduled?: number;
    numberAvailable?: number;
    observedGeneration?: number;
    [field: string]: unknown;
  };
}
/** DaemonSets. */
export const DaemonSet = defineResource<DaemonSet>({
  group: 'apps',
  version: 'v1',
  kind: 'DaemonSet',
  plural: 'daemonsets',
  namespaced: true,
});

/** A stateful set (`apps/v1`). */
export interface StatefulSet extends KubeObject {
  spec?: {
    replicas?: number;
    selector: LabelSelectorSpec;
    serviceName?: string;
    template: PodTemplateSpec;
    [field: string]: unknown;
  };
  status?: {
    replicas: number;
    readyReplicas?: number;
    currentRevision?: string;
    updateRevision?: string;
  } & Open;
}
/** StatefulSets. */
export const StatefulSet = defineResource<StatefulSet>({
  group: 'apps',
  version: 'v1',
  kind: 'StatefulSet',
  plural: 'statefulsets',
  namespaced: true,
});

// --- policy/v1 -------------------------------------------------------------------------------

/** A pod disruption budget (`policy/v1`). */
export interface PodDisruptionBudget extends KubeObject {
  spec?: {
    minAvailable?: number | string;
    maxUnavailable?: number | string;
    selector?: LabelSelectorSpec;
    unhealthyPodEvictionPolicy?: 'IfHealthyBudget' | 'AlwaysAllow';
  };
  status?: {
    currentHealthy: number;
    desiredHealthy: number;
    disruptionsAllowed: number;
    expectedPods: number;
    observedGeneration?: number;
    conditions?: StatusCondition[];
    [field: string]: unknown;
  };
}
/** PodDisruptionBudgets. */
export const PodDisruptionBudget = defineResource<PodDisruptionBudget>({
  group: 'policy',
  version: 'v1',
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
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
