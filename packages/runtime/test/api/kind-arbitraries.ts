/**
 * fast-check arbitraries of objects of some built-in kinds, typed with the generated types (so
 * each arbitrary is checked against them by tsc) and valid for the real apiserver: names, labels,
 * images, ports and enums vary; each enum draws from its generated union.
 */
import fc from 'fast-check';
import { Deployment } from '../../src/api/generated/apps/v1.js';
import { CronJob, Job } from '../../src/api/generated/batch/v1.js';
import type * as core from '../../src/api/generated/core/v1.js';
import { ConfigMap, PersistentVolumeClaim, Secret, Service } from '../../src/api/generated/core/v1.js';
import { Ingress, NetworkPolicy } from '../../src/api/generated/networking/v1.js';
import { PodDisruptionBudget } from '../../src/api/generated/policy/v1.js';
import { Role } from '../../src/api/generated/rbac/v1.js';
import type { ResourceType } from '../../src/api/types.js';
import type { KubeObject } from '../../src/client/index.js';

const dnsLabel = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
const labels = fc.dictionary(dnsLabel, dnsLabel, { maxKeys: 3 });
const image = fc.constantFrom('nginx:1.27', 'busybox', `registry.local/app@sha256:${'a'.repeat(64)}`);
const pullPolicy = fc.constantFrom<core.PullPolicy>('Always', 'IfNotPresent', 'Never');
const protocol = fc.constantFrom<core.Protocol>('TCP', 'UDP', 'SCTP');
const quantity = fc.constantFrom('1Gi', '512Mi', '100m', '2');

const container = (name: string): fc.Arbitrary<core.Container> =>
  fc.record({
    name: fc.constant(name),
    image,
    imagePullPolicy: pullPolicy,
    args: fc.array(fc.string({ maxLength: 8 }), { maxLength: 2 }),
    ports: fc
      .uniqueArray(fc.integer({ min: 1, max: 65535 }), { maxLength: 2 })
      .chain((ports) =>
        fc.tuple(
          ...ports.map((containerPort) => fc.record({ containerPort: fc.constant(containerPort), protocol })),
        ),
      ),
    resources: fc.record({ requests: fc.record({ cpu: quantity, memory: fc.constantFrom('64Mi', '1Gi') }) }),
  });

const podTemplate = (selector: Record<string, string>, restart: fc.Arbitrary<core.RestartPolicy>) =>
  fc.record({
    metadata: fc.constant({ labels: selector }),
    spec: fc.record({
      restartPolicy: restart,
      containers: fc.tuple(container('main')),
      terminationGracePeriodSeconds: fc.integer({ min: 0, max: 600 }),
      dnsPolicy: fc.constantFrom<core.DNSPolicy>('ClusterFirst', 'Default', 'ClusterFirstWithHostNet'),
    }),
  });

/** One kind's arbitrary: objects named by the test (the name is unique per run). */
export interface KindSample {
  type: ResourceType;
  object: (name: string, namespace: string) => fc.Arbitrary<KubeObject>;
}

/** Ties an arbitrary to its kind's generated type: tsc checks every field it draws. */
const sample = <T extends KubeObject>(
  type: ResourceType<T>,
  object: (name: string, namespace: string) => fc.Arbitrary<T>,
): KindSample => ({ type, object });

const meta = (name: string, namespace: string) =>
  labels.map((l) => ({ name, namespace, labels: l, annotations: { 'capstan.dev/round-trip': 'yes' } }));

const selector = { app: 'round-trip' };

export const kindSamples: KindSample[] = [
  sample(ConfigMap, (name, namespace) =>
    fc.record({
      metadata: meta(name, namespace),
      data: fc.dictionary(dnsLabel, fc.string(), { maxKeys: 3 }),
    }),
  ),
  sample(Secret, (name, namespace) =>
    fc.record({
      metadata: meta(name, namespace),
      type: fc.constant('Opaque'),
      data: fc.dictionary(dnsLabel, fc.base64String({ maxLength: 12 }), { maxKeys: 2 }),
    }),
  ),
  sample(Service, (name, namespace) =>
    fc.record({
      metadata: meta(name, namespace),
      spec: fc.record({
        type: fc.constantFrom<core.ServiceType>('ClusterIP', 'NodePort'),
        selector: fc.constant(selector),
        sessionAffinity: fc.constantFrom<core.ServiceAffinity>('None', 'ClientIP'),
        ports: fc.tuple(
          fc.record({
            name: fc.constant('http'),
            port: fc.integer({ min: 1, max: 65535 }),
            targetPort: fc.oneof(fc.integer({ min: 1, max: 65535 }), fc.constant('http')),
            protocol,
          }),
        ),
      }),
    }),
  ),
  sample(PersistentVolumeClaim, (name, namespace) =>
    fc.record({
      metadata: meta(name, namespace),
      spec: fc.record({
        accessModes: fc.subarray<core.PersistentVolumeAccessMode>(
          ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany'],
          { minLength: 1 },
        ),
        volumeMode: fc.constantFrom<core.PersistentVolumeMode>('Filesystem', 'Block'),
        resources: fc.record({ requests: fc.record({ storage: fc.constantFrom('1Gi', '10Mi') }) }),
      }),
    }),
  ),
  sample(Deployment, (name, namespace) =>
    fc.record({
      metadata: meta(name, namespace),
      spec: fc.record({
        replicas: fc.integer({ min: 0, max: 5 }),
        selector: fc.constant({ matchLabels: selector }),
        template: podTemplate(selector, fc.constant<core.RestartPolicy>('Always')),
        strategy: fc.oneof(
          fc.constant({ type: 'Recreate' as const }),
          fc.record({
            type: fc.constant('RollingUpdate' as const),
            rollingUpdate: fc.record({
              maxSurge: fc.constantFrom<number | string>(1, '25%'),
              maxUnavailable: fc.constantFrom<number | string>(0, '10%'),
            }),
          }),
        ),
      }),
    }),
  ),
  sample(Job, (name, namespace) =>
    fc.record({
      metadata: meta(name, namespace),
      spec: fc.record({
        backoffLimit: fc.integer({ min: 0, max: 6 }),
        completionMode: fc.constantFrom('NonIndexed' as const, 'Indexed' as const),
        completions: fc.integer({ min: 1, max: 3 }),
        template: podTemplate({}, fc.constantFrom<core.RestartPolicy>('Never', 'OnFailure')),
      }),
    }),
  ),
  sample(CronJob, (name, namespace) =>
    fc.record({
      metadata: meta(name, namespace),
      spec: fc.record({
        schedule: fc.constantFrom('*/5 * * * *', '0 3 * * 1'),
        concurrencyPolicy: fc.constantFrom('Allow' as const, 'Forbid' as const, 'Replace' as const),
        suspend: fc.boolean(),
        jobTemplate: fc.record({
          spec: fc.record({ template: podTemplate({}, fc.constant<core.RestartPolicy>('Never')) }),
        }),
      }),
    }),
  ),
  sample(Ingress, (name, namespace) =>
    fc.record({
      metadata: meta(name, namespace),
      spec: fc.record({
        rules: fc.tuple(
          fc.record({
            host: dnsLabel.map((h) => `${h}.example.com`),
            http: fc.record({
              paths: fc.tuple(
                fc.record({
                  path: fc.constant('/'),
                  pathType: fc.constantFrom(
                    'Prefix' as const,
                    'Exact' as const,
                    'ImplementationSpecific' as const,
                  ),
                  backend: fc.record({
                    service: fc.record({
                      name: dnsLabel,
                      port: fc.record({ number: fc.integer({ min: 1, max: 65535 }) }),
                    }),
                  }),
                }),
              ),
            }),
          }),
        ),
      }),
    }),
  ),
  sample(NetworkPolicy, (name, namespace) =>
    fc.record({
      metadata: meta(name, namespace),
      spec: fc.record({
        podSelector: fc.record({ matchLabels: labels }),
        policyTypes: fc.subarray(['Ingress' as const, 'Egress' as const], { minLength: 1 }),
        ingress: fc.array(
          fc.record({ ports: fc.tuple(fc.record({ protocol, port: fc.integer({ min: 1, max: 65535 }) })) }),
          { maxLength: 2 },
        ),
      }),
    }),
  ),
  sample(PodDisruptionBudget, (name, namespace) =>
    fc.record({
      metadata: meta(name, namespace),
      spec: fc.record({
        minAvailable: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constant('50%')),
        selector: fc.constant({ matchLabels: selector }),
        unhealthyPodEvictionPolicy: fc.constantFrom('IfHealthyBudget' as const, 'AlwaysAllow' as const),
      }),
    }),
  ),
  sample(Role, (name, namespace) =>
    fc.record({
      metadata: meta(name, namespace),
      rules: fc.array(
        fc.record({
          apiGroups: fc.constant(['', 'apps']),
          resources: fc.subarray(['pods', 'deployments', 'configmaps'], { minLength: 1 }),
          verbs: fc.subarray(['get', 'list', 'watch', 'update'], { minLength: 1 }),
        }),
        { maxLength: 3 },
      ),
    }),
  ),
];
