/**
 * Objects of many built-in kinds for the protobuf tests, each using fields whose JSON is not a
 * plain struct field: quantities, int-or-strings, times, micro-times, durations, embedded JSON,
 * inline structs, pointers to zero values, maps of bytes.
 */

import { defineResource, type ResourceType, type UnstructuredObject } from '../../src/api/types.js';
import {
  ClusterRole,
  Deployment,
  Event as EventsV1,
  PodDisruptionBudget,
  StatefulSet,
} from '../../src/client/builtin.js';
import { ConfigMap, Lease, Pod, Secret, ServiceAccount } from '../../src/client/index.js';

const type = (group: string, version: string, kind: string, plural: string, namespaced = true) =>
  defineResource({ group, version, kind, plural, namespaced });

const Service = type('', 'v1', 'Service', 'services');
const ResourceQuota = type('', 'v1', 'ResourceQuota', 'resourcequotas');
const LimitRange = type('', 'v1', 'LimitRange', 'limitranges');
const PersistentVolume = type('', 'v1', 'PersistentVolume', 'persistentvolumes', false);
const ControllerRevision = type('apps', 'v1', 'ControllerRevision', 'controllerrevisions');
const CronJob = type('batch', 'v1', 'CronJob', 'cronjobs');
const HorizontalPodAutoscaler = type(
  'autoscaling',
  'v2',
  'HorizontalPodAutoscaler',
  'horizontalpodautoscalers',
);
const NetworkPolicy = type('networking.k8s.io', 'v1', 'NetworkPolicy', 'networkpolicies');
const PriorityClass = type('scheduling.k8s.io', 'v1', 'PriorityClass', 'priorityclasses', false);
const EndpointSlice = type('discovery.k8s.io', 'v1', 'EndpointSlice', 'endpointslices');

const podSpec = {
  containers: [
    {
      name: 'app',
      image: 'registry.example/app:1.0',
      command: ['/app', '--flag'],
      ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }, { containerPort: 9090 }],
      env: [
        { name: 'PLAIN', value: 'v' },
        { name: 'EMPTY', value: '' },
        { name: 'FROM', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        { name: 'RES', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
      ],
      resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '0.1', memory: '1e3' } },
      livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5, timeoutSeconds: 1 },
      readinessProbe: { tcpSocket: { port: 8080 }, initialDelaySeconds: 0 },
      securityContext: {
        runAsUser: 0,
        runAsNonRoot: false,
        privileged: false,
        capabilities: { drop: ['ALL'] },
      },
      volumeMounts: [{ name: 'config', mountPath: '/etc/config', readOnly: true }],
    },
  ],
  volumes: [
    {
      name: 'config',
      configMap: { name: 'cm', items: [{ key: 'k', path: 'k.txt', mode: 0o644 }], defaultMode: 420 },
    },
    { name: 'scratch', emptyDir: { sizeLimit: '64Mi', medium: 'Memory' } },
  ],
  tolerations: [
    {
      key: 'node.kubernetes.io/unreachable',
      operator: 'Exists',
      effect: 'NoExecute',
      tolerationSeconds: 300,
    },
  ],
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          { matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] },
        ],
      },
    },
  },
  terminationGracePeriodSeconds: 0,
  nodeSelector: { role: 'worker' },
};

/** The samples; `status` is written through the status subresource after the create. */
export function sampleObjects(
  namespace: string,
): Array<{ type: ResourceType; object: UnstructuredObject; status?: Record<string, unknown> }> {
  const meta = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    namespace,
    labels: { app: 'sample', 'z-last': '', 'a-first': 'x' },
    annotations: { note: 'ünïcödé ✓', long: 'a'.repeat(300) },
    ...extra,
  });
  const cluster = (name: string) => ({ name: `${namespace}-${name}`, labels: { app: 'sample' } });
  return [
    {
      type: ConfigMap,
      object: {
        metadata: meta('cm', { finalizers: ['example.dev/keep'], generateName: 'cm-' }),
        // A key that is valid in a ConfigMap and must stay an own property, as JSON.parse makes it.
        data: { k: 'v', empty: '', ['__proto__']: 'p' },
        binaryData: { bin: Buffer.from([0, 1, 2, 255]).toString('base64'), none: '' },
      },
    },
    {
      type: Secret,
      object: { metadata: meta('secret'), type: 'Opaque', data: { a: 'AAEC', b: '' }, immutable: false },
    },
    { type: ServiceAccount, object: { metadata: meta('sa'), automountServiceAccountToken: false } },
    {
      type: Pod,
      object: { metadata: meta('pod', { ownerReferences: [] }), spec: podSpec },
      status: {
        phase: 'Running',
        podIP: '10.0.0.1',
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-12-01T10:00:00Z' }],
        startTime: '2026-12-01T10:00:00Z',
      },
    },
    {
      type: Service,
      object: {
        metadata: meta('svc'),
        spec: {
          ports: [
            { name: 'http', port: 80, targetPort: 'http' },
            { name: 'metrics', port: 9090, targetPort: 9090, protocol: 'TCP' },
          ],
          selector: { app: 'sample' },
          sessionAffinity: 'ClientIP',
          sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } },
        },
      },
    },
    {
      type: Deployment,
      object: {
        metadata: meta('deploy'),
        spec: {
          replicas: 0,
          revisionHistoryLimit: 0,
          selector: { matchLabels: { app: 'sample' } },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
          template: { metadata: { labels: { app: 'sample' } }, spec: podSpec },
        },
      },
    },
    {
      type: StatefulSet,
      object: {
        metadata: meta('sts'),
        spec: {
          serviceName: 'svc',
          selector: { matchLabels: { app: 'sample' } },
          template: { metadata: { labels: { app: 'sample' } }, spec: podSpec },
          volumeClaimTemplates: [
            {
              metadata: { name: 'data' },
              spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
            },
          ],
          persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' },
        },
      },
    },
    {
      type: PodDisruptionBudget,
      object: {
        metadata: meta('pdb'),
        spec: { minAvailable: '50%', selector: { matchLabels: { app: 'sample' } } },
      },
    },
    {
      type: Lease,
      object: {
        metadata: meta('lease'),
        spec: {
          holderIdentity: 'me',
          leaseDurationSeconds: 15,
          acquireTime: '2026-12-01T10:00:00.123456Z',
          renewTime: '2026-12-01T10:00:05.000001Z',
          leaseTransitions: 0,
        },
      },
    },
    {
      type: EventsV1,
      object: {
        metadata: meta('event'),
        eventTime: '2026-12-01T10:00:00.500000Z',
        reportingController: 'example.dev/sample',
        reportingInstance: 'sample-1',
        action: 'Reconcile',
        reason: 'Synced',
        type: 'Normal',
        regarding: { kind: 'Pod', name: 'pod', namespace },
        note: 'synced',
      },
    },
    {
      type: ResourceQuota,
      object: {
        metadata: meta('quota'),
        spec: { hard: { pods: '10', 'requests.cpu': '2', 'limits.memory': '2Gi' } },
      },
    },
    {
      type: LimitRange,
      object: {
        metadata: meta('limits'),
        spec: {
          limits: [
            {
              type: 'Container',
              default: { cpu: '200m' },
              max: { memory: '1Gi' },
              maxLimitRequestRatio: { cpu: '4' },
            },
          ],
        },
      },
    },
    {
      type: ControllerRevision,
      object: {
        metadata: meta('revision'),
        revision: 3,
        data: { spec: { template: { a: [1, 'two', null, { b: true }] } } },
      },
    },
    {
      type: CronJob,
      object: {
        metadata: meta('cron'),
        spec: {
          schedule: '*/5 * * * *',
          suspend: true,
          startingDeadlineSeconds: 0,
          jobTemplate: {
            spec: { backoffLimit: 0, template: { spec: { ...podSpec, restartPolicy: 'Never' } } },
          },
        },
      },
    },
    {
      type: HorizontalPodAutoscaler,
      object: {
        metadata: meta('hpa'),
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'deploy' },
          minReplicas: 1,
          maxReplicas: 5,
          metrics: [
            {
              type: 'Resource',
              resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
            },
            {
              type: 'Pods',
              pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '1500m' } },
            },
          ],
          behavior: {
            scaleDown: {
              stabilizationWindowSeconds: 0,
              policies: [{ type: 'Percent', value: 10, periodSeconds: 60 }],
            },
          },
        },
      },
    },
    {
      type: NetworkPolicy,
      object: {
        metadata: meta('netpol'),
        spec: {
          podSelector: {},
          policyTypes: ['Ingress'],
          ingress: [
            {
              ports: [{ port: 'http' }, { port: 8000, endPort: 9000 }],
              from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }],
            },
          ],
        },
      },
    },
    {
      type: EndpointSlice,
      object: {
        metadata: meta('slice'),
        addressType: 'IPv4',
        endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: false, serving: true }, nodeName: 'n1' }],
        ports: [{ name: '', port: 0, protocol: 'TCP' }],
      },
    },
    {
      type: PriorityClass,
      object: {
        metadata: cluster('priority'),
        value: -5,
        description: 'negative',
        preemptionPolicy: 'Never',
      },
    },
    {
      type: PersistentVolume,
      object: {
        metadata: cluster('pv'),
        spec: {
          capacity: { storage: '10Gi' },
          accessModes: ['ReadWriteOnce'],
          hostPath: { path: '/data', type: '' },
          persistentVolumeReclaimPolicy: 'Retain',
        },
      },
    },
    {
      type: ClusterRole,
      object: {
        metadata: cluster('role'),
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { aggregate: 'true' } }] },
      },
    },
  ];
}
