/**
 * Built-in kinds the runtime and the operators use, each declared once with {@link defineResource}.
 *
 * The interfaces type the fields the runtime reads and leave the rest open (every object keeps its
 * index signature), rather than mirroring the full OpenAPI schema: client-node's model classes have
 * an optional `metadata` and so do not fit {@link KubeObject}.
 */
import { defineResource, type KubeObject, type ObjectMeta } from '../api/types.js';

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

export * from './builtin-apps.js';
export * from './builtin-cluster.js';
