/** Built-in workload kinds (apps/v1, policy/v1), declared once with {@link defineResource}. */

import { defineResource, type KubeObject } from '../api/types.js';
import type { LabelSelectorSpec, PodTemplateSpec, StatusCondition } from './builtin.js';

/** Open shape for the parts of a spec or status not typed here. */
type Open = Record<string, unknown>;

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
