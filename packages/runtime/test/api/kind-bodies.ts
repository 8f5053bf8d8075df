/**
 * A valid body for every creatable built-in kind the round-trip test does not draw from
 * ./kind-arbitraries.ts, keyed by kind (`apiVersion kind` where versions differ), and the kinds
 * envtest's kube-apiserver serves with `create` but cannot keep an object of, each with the reason.
 * The random part is the metadata the test adds (labels, annotations); these are the least each
 * kind's validation asks for.
 */
import type { UnstructuredObject } from '../../src/api/types.js';

/** What a body may need from the run: its namespace, and a CA certificate (PEM) the server trusts. */
export interface BodyContext {
  namespace: string;
  caPem: string;
}
type Body = (context: BodyContext) => Omit<UnstructuredObject, 'metadata'>;

const container = { name: 'main', image: 'busybox' };
const selector = { app: 'round-trip' };
const podTemplate = { metadata: { labels: selector }, spec: { containers: [container] } };
const workload = { selector: { matchLabels: selector }, template: podTemplate };

/** Kinds served with `create` that envtest cannot store an object of, and why. */
export const NOT_CREATABLE: Readonly<Record<string, string>> = {
  TokenReview: 'a review: create answers it, nothing is stored to read back',
  SelfSubjectReview: 'a review: create answers it, nothing is stored to read back',
  SubjectAccessReview: 'a review: create answers it, nothing is stored to read back',
  SelfSubjectAccessReview: 'a review: create answers it, nothing is stored to read back',
  SelfSubjectRulesReview: 'a review: create answers it, nothing is stored to read back',
  LocalSubjectAccessReview: 'a review: create answers it, nothing is stored to read back',
  CertificateSigningRequest: 'needs a PKCS#10 request signed by its key, which node:crypto cannot make',
  PodCertificateRequest:
    'needs a running Pod on a Node with a service account, and a proof of possession signed for it',
};

/** Bodies by kind, or by `apiVersion kind` where a version's schema differs. */
export const KIND_BODIES: Readonly<Record<string, Body>> = {
  Endpoints: () => ({ subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] }),
  Event: ({ namespace }) => ({
    involvedObject: { kind: 'ConfigMap', name: 'x', namespace },
    reason: 'RoundTrip',
    message: 'round trip',
    type: 'Normal',
  }),
  'events.k8s.io/v1 Event': ({ namespace }) => ({
    eventTime: '2026-01-01T00:00:00.000000Z',
    reportingController: 'capstan.dev/round-trip',
    reportingInstance: 'round-trip-1',
    action: 'Check',
    reason: 'RoundTrip',
    type: 'Normal',
    regarding: { kind: 'ConfigMap', name: 'x', namespace },
  }),
  LimitRange: () => ({ spec: { limits: [{ type: 'Container', max: { cpu: '2' } }] } }),
  Namespace: () => ({}),
  Node: () => ({ spec: { unschedulable: true } }),
  PersistentVolume: () => ({
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      hostPath: { path: '/tmp/round-trip' },
    },
  }),
  Pod: () => ({ spec: { containers: [container] } }),
  PodTemplate: () => ({ template: podTemplate }),
  ReplicationController: () => ({ spec: { replicas: 0, selector, template: podTemplate } }),
  ResourceQuota: () => ({ spec: { hard: { pods: '10' } } }),
  ServiceAccount: () => ({ automountServiceAccountToken: false }),
  ControllerRevision: () => ({ revision: 1, data: { spec: {} } }),
  DaemonSet: () => ({ spec: workload }),
  ReplicaSet: () => ({ spec: { replicas: 0, ...workload } }),
  StatefulSet: () => ({ spec: { replicas: 0, serviceName: 'x', ...workload } }),
  HorizontalPodAutoscaler: () => ({
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'x' }, maxReplicas: 3 },
  }),
  ClusterTrustBundle: ({ caPem }) => ({ spec: { trustBundle: caPem } }),
  IngressClass: () => ({ spec: { controller: 'capstan.dev/round-trip' } }),
  IPAddress: () => ({ spec: { parentRef: { resource: 'services', name: 'x', namespace: 'default' } } }),
  ServiceCIDR: () => ({ spec: { cidrs: ['10.200.0.0/24'] } }),
  ClusterRole: () => ({ rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }),
  ClusterRoleBinding: () => ({
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'ServiceAccount', name: 'x', namespace: 'default' }],
  }),
  RoleBinding: ({ namespace }) => ({
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'ServiceAccount', name: 'x', namespace }],
  }),
  CSIDriver: () => ({ spec: { attachRequired: false, podInfoOnMount: true } }),
  CSINode: () => ({ spec: { drivers: [{ name: 'csi.capstan.dev', nodeID: 'n1' }] } }),
  CSIStorageCapacity: () => ({ storageClassName: 'standard', capacity: '1Gi' }),
  StorageClass: () => ({ provisioner: 'csi.capstan.dev', reclaimPolicy: 'Delete' }),
  VolumeAttachment: () => ({
    spec: { attacher: 'csi.capstan.dev', nodeName: 'n1', source: { persistentVolumeName: 'pv1' } },
  }),
  VolumeAttributesClass: () => ({ driverName: 'csi.capstan.dev', parameters: { iops: '100' } }),
  MutatingWebhookConfiguration: () => ({ webhooks: [] }),
  ValidatingWebhookConfiguration: () => ({ webhooks: [] }),
  ValidatingAdmissionPolicy: () => ({
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] },
        ],
      },
      validations: [{ expression: 'true' }],
    },
  }),
  ValidatingAdmissionPolicyBinding: () => ({ spec: { policyName: 'x', validationActions: ['Deny'] } }),
  MutatingAdmissionPolicy: () => ({
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] },
        ],
      },
      mutations: [
        {
          patchType: 'ApplyConfiguration',
          applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"a": "b"}}}' },
        },
      ],
      reinvocationPolicy: 'Never',
    },
  }),
  MutatingAdmissionPolicyBinding: () => ({ spec: { policyName: 'x' } }),
  PriorityClass: () => ({ value: 1000, preemptionPolicy: 'Never' }),
  Lease: () => ({ spec: { holderIdentity: 'round-trip', leaseDurationSeconds: 15 } }),
  Workload: () => ({ spec: { podGroups: [{ name: 'g', policy: { basic: {} } }] } }),
  LeaseCandidate: () => ({
    spec: {
      leaseName: 'x',
      binaryVersion: '1.35.0',
      emulationVersion: '1.35.0',
      strategy: 'OldestEmulationVersion',
    },
  }),
  RuntimeClass: () => ({ handler: 'runc' }),
  EndpointSlice: () => ({ addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }] }),
  DeviceClass: () => ({ spec: {} }),
  'resource.k8s.io/v1 ResourceClaim': () => ({
    spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'x' } }] } },
  }),
  'resource.k8s.io/v1beta2 ResourceClaim': () => ({
    spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'x' } }] } },
  }),
  'resource.k8s.io/v1beta1 ResourceClaim': () => ({
    spec: { devices: { requests: [{ name: 'r', deviceClassName: 'x' }] } },
  }),
  'resource.k8s.io/v1 ResourceClaimTemplate': () => ({
    spec: { spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'x' } }] } } },
  }),
  'resource.k8s.io/v1beta2 ResourceClaimTemplate': () => ({
    spec: { spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'x' } }] } } },
  }),
  'resource.k8s.io/v1beta1 ResourceClaimTemplate': () => ({
    spec: { spec: { devices: { requests: [{ name: 'r', deviceClassName: 'x' }] } } },
  }),
  ResourceSlice: () => ({
    spec: {
      driver: 'dra.capstan.dev',
      pool: { name: 'p', generation: 1, resourceSliceCount: 1 },
      allNodes: true,
    },
  }),
  DeviceTaintRule: () => ({ spec: { taint: { key: 'capstan.dev/broken', effect: 'NoSchedule' } } }),
  FlowSchema: () => ({
    spec: {
      priorityLevelConfiguration: { name: 'global-default' },
      matchingPrecedence: 5000,
      rules: [
        {
          subjects: [{ kind: 'Group', group: { name: 'capstan:round-trip' } }],
          resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['*'] }],
        },
      ],
    },
  }),
  PriorityLevelConfiguration: () => ({
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } },
  }),
  StorageVersion: () => ({ spec: {} }),
  StorageVersionMigration: () => ({ spec: { resource: { group: 'apps', resource: 'deployments' } } }),
};
