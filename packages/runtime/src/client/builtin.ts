/**
 * The built-in kinds most controllers use, re-exported from the types generated from k8s.io/api
 * (`src/api/generated`, one module per group/version: every kind is there, and at
 * `@capstan/runtime/api/<group>/<version>`), each with its resource descriptor. The stable
 * version of each kind is the one here; {@link CustomResourceDefinition} (not in k8s.io/api) is
 * declared by hand.
 */

export {
  MutatingWebhookConfiguration,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingWebhookConfiguration,
} from '../api/generated/admissionregistration/v1.js';
export type { DeploymentSpec, StatefulSetSpec } from '../api/generated/apps/v1.js';
export {
  ControllerRevision,
  DaemonSet,
  Deployment,
  ReplicaSet,
  StatefulSet,
} from '../api/generated/apps/v1.js';
export { HorizontalPodAutoscaler } from '../api/generated/autoscaling/v2.js';
export type { JobSpec } from '../api/generated/batch/v1.js';
export { CronJob, Job } from '../api/generated/batch/v1.js';
export { CertificateSigningRequest } from '../api/generated/certificates/v1.js';
export { Lease } from '../api/generated/coordination/v1.js';
export type {
  Container,
  ContainerPort,
  EnvVar,
  ObjectReference,
  PersistentVolumeClaimSpec,
  PodSpec,
  PodTemplateSpec,
  ServicePort,
  ServiceSpec,
  Taint,
  Toleration,
  Volume,
  VolumeMount,
} from '../api/generated/core/v1.js';
export {
  ComponentStatus,
  ConfigMap,
  Endpoints,
  Event as CoreEvent,
  LimitRange,
  Namespace,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  PodTemplate,
  ReplicationController,
  ResourceQuota,
  Secret,
  Service,
  ServiceAccount,
} from '../api/generated/core/v1.js';
export { EndpointSlice } from '../api/generated/discovery/v1.js';
export { Event } from '../api/generated/events/v1.js';
export type {
  Condition,
  LabelSelector,
  LabelSelector as LabelSelectorSpec,
  LabelSelectorRequirement,
  ListMeta,
} from '../api/generated/meta/v1.js';
export {
  Ingress,
  IngressClass,
  IPAddress,
  NetworkPolicy,
  ServiceCIDR,
} from '../api/generated/networking/v1.js';
export { RuntimeClass } from '../api/generated/node/v1.js';
export { PodDisruptionBudget } from '../api/generated/policy/v1.js';
export type { PolicyRule, RoleRef, Subject } from '../api/generated/rbac/v1.js';
export { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from '../api/generated/rbac/v1.js';
export { PriorityClass } from '../api/generated/scheduling/v1.js';
export {
  CSIDriver,
  CSINode,
  CSIStorageCapacity,
  StorageClass,
  VolumeAttachment,
  VolumeAttributesClass,
} from '../api/generated/storage/v1.js';
export type { KeyedList } from '../api/keyed-list.js';
export * from './custom-resource-definition.js';
