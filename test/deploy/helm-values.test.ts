/**
 * The Helm chart with the values an admin sets: each set rendered by the real helm and accepted by
 * the real API server (server-side dry run, strict field validation, in a namespace of this file),
 * with what each value should change checked on the rendered objects.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { useControlPlane } from '@capstan/envtest/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ManifestObject } from '../../packages/envtest/src/index.js';
import { root } from '../packaging/packages.js';
import { container, find, parsedBy, podSpec, renderChart } from './chart.js';
import { monitoringCrdFiles } from './monitoring-crds.js';
import { exported, runbooks } from './monitoring-facts.js';
import { buildTools, TOOLS_BUILD_MS } from './tools.js';

beforeAll(buildTools, TOOLS_BUILD_MS);
const env = useControlPlane('helm-values');
beforeAll(async () => {
  await env.plane.installCRDs(await monitoringCrdFiles());
}, 300_000);

const agent = (objects: ManifestObject[]) => container(objects, 'DaemonSet', 'capstan-agent');
const agentPod = (objects: ManifestObject[]) => podSpec(objects, 'DaemonSet', 'capstan-agent');
const coordinator = (objects: ManifestObject[]) => container(objects, 'Deployment', 'capstan-coordinator');
const coordinatorPod = (objects: ManifestObject[]) => podSpec(objects, 'Deployment', 'capstan-coordinator');

/** Renders, checks every object lands in the release namespace or none, and dry-runs it. */
async function renderAndApply(...values: Array<object | string>): Promise<ManifestObject[]> {
  const objects = await renderChart(env.namespace, ...values);
  for (const o of objects) expect([undefined, env.namespace, 'default']).toContain(o.metadata?.namespace);
  expect(JSON.stringify(objects)).not.toContain('capstan-system');
  await env.plane.applyObjects(objects, { dryRun: true });
  // And the operators' own parsers take the arguments rendered for them.
  for (const [kind, name, main] of WORKLOADS) {
    const workload = objects.find((o) => o.kind === kind && o.metadata?.name === name);
    if (workload) await parsedBy(main, container(objects, kind, name).args);
  }
  return objects;
}

const WORKLOADS: Array<[string, string, string]> = [
  ['Deployment', 'capstan-coordinator', 'packages/coordinator/dist/main.js'],
  ['DaemonSet', 'capstan-agent', 'packages/agent/dist/main.js'],
  ['Deployment', 'capstan-version-operator', 'packages/version-operator/dist/main.js'],
  ['Deployment', 'capstan-capvcd', 'packages/capvcd/dist/main.js'],
];

describe('the agent source', () => {
  it('defaults: update_engine on the host D-Bus, no host /run, no host PID namespace', async () => {
    const objects = await renderAndApply();
    expect(agent(objects).args).toContain('--source=update-engine');
    expect(agentPod(objects).hostPID).toBeUndefined();
    expect(agentPod(objects).volumes?.map((v) => v.name)).toEqual(['dbus', 'os-release']);
    expect(agent(objects).securityContext?.capabilities).toBeUndefined();
  });

  it('sentinel-file: the host /run read-only at /host/run, the flag pointing into it', async () => {
    const objects = await renderAndApply({
      agent: { source: { type: 'sentinel-file', sentinelFile: { fileName: 'reboot-needed' } } },
    });
    const args = agent(objects).args;
    expect(args).toContain('--source=file');
    expect(args).toContain('--reboot-sentinel=/host/run/reboot-needed');
    expect(agentPod(objects).volumes).toContainEqual({
      name: 'host-run',
      hostPath: { path: '/run', type: 'Directory' },
    });
    expect(agent(objects).volumeMounts).toContainEqual({
      name: 'host-run',
      mountPath: '/host/run',
      readOnly: true,
    });
    expect(agentPod(objects).hostPID).toBeUndefined();
  });

  it("sentinel-command: run in PID 1's namespaces by the agent, with hostPID and nsenter's privileges", async () => {
    const objects = await renderAndApply({
      agent: {
        source: {
          type: 'sentinel-command',
          sentinelCommand: {
            command: '/opt/bin/check-reboot',
            neededExitCodes: [1, 2],
            notNeededExitCodes: [0],
          },
        },
      },
    });
    expect(agentPod(objects).hostPID).toBe(true);
    expect(agent(objects).args).toEqual(
      expect.arrayContaining([
        '--source=command',
        '--reboot-sentinel-command=/opt/bin/check-reboot',
        '--sentinel-host-namespaces',
        '--reboot-sentinel-needed-exit-codes=1,2',
        '--reboot-sentinel-not-needed-exit-codes=0',
      ]),
    );
    expect(agent(objects).securityContext).toMatchObject({
      capabilities: { add: ['SYS_ADMIN', 'SYS_CHROOT', 'SYS_PTRACE'] },
      seLinuxOptions: { type: 'spc_t' },
      appArmorProfile: { type: 'Unconfined' },
    });
    expect(agentPod(objects).volumes?.map((v) => v.name)).not.toContain('host-run');
  });

  it('sentinel-command in the container (hostNamespaces false): no host PID namespace, no capabilities', async () => {
    const objects = await renderAndApply({
      agent: {
        source: { type: 'sentinel-command', sentinelCommand: { command: 'check', hostNamespaces: false } },
      },
    });
    const args = agent(objects).args;
    expect(args).toContain('--reboot-sentinel-command=check');
    expect(args).toContain('--reboot-sentinel-needed-exit-codes=0');
    expect(args).not.toContain('--sentinel-host-namespaces');
    expect(args.some((a) => a.startsWith('--reboot-sentinel-not-needed-exit-codes'))).toBe(false);
    expect(agentPod(objects).hostPID).toBeUndefined();
    expect(agent(objects).securityContext?.capabilities).toBeUndefined();
  });

  const examples = readdirSync(join(root, 'deploy/helm/capstan/examples')).sort();
  const expected: Record<string, string[]> = {
    'flatcar.yaml': ['--source=update-engine'],
    'debian-ubuntu.yaml': ['--source=file', '--reboot-sentinel=/host/run/reboot-required'],
    'rhel.yaml': [
      '--source=command',
      '--reboot-sentinel-command=needs-restarting -r',
      '--sentinel-host-namespaces',
      '--reboot-sentinel-needed-exit-codes=1',
      '--reboot-sentinel-not-needed-exit-codes=0',
    ],
    'fedora-coreos.yaml': [
      '--source=command',
      '--reboot-sentinel-command=rpm-ostree status --pending-exit-77',
      '--sentinel-host-namespaces',
      '--reboot-sentinel-needed-exit-codes=77',
      '--reboot-sentinel-not-needed-exit-codes=0',
    ],
  };
  it('has one example values file per host family', () => {
    expect(examples).toEqual(Object.keys(expected).sort());
  });
  it.each(examples)('examples/%s renders its source and applies', async (file) => {
    const objects = await renderAndApply(`deploy/helm/capstan/examples/${file}`);
    expect(agent(objects).args).toEqual(expect.arrayContaining(expected[file] as string[]));
    expect(agentPod(objects).hostPID === true).toBe(file === 'rhel.yaml' || file === 'fedora-coreos.yaml');
  });
});

describe('the reboot method', () => {
  it('command: hostPID and the privileges nsenter needs, as a sentinel command on the host', async () => {
    const objects = await renderAndApply({
      agent: { config: { 'reboot-method': 'command', 'reboot-command': 'systemctl soft-reboot' } },
    });
    expect(agent(objects).args).toEqual(
      expect.arrayContaining(['--reboot-method=command', '--reboot-command=systemctl soft-reboot']),
    );
    expect(agentPod(objects).hostPID).toBe(true);
    expect(agent(objects).securityContext).toMatchObject({
      capabilities: { add: ['SYS_ADMIN', 'SYS_CHROOT', 'SYS_PTRACE'] },
      seLinuxOptions: { type: 'spc_t' },
    });
  });

  it('signal: hostPID and KILL only, nothing nsenter needs', async () => {
    const objects = await renderAndApply({ agent: { config: { 'reboot-method': 'signal' } } });
    expect(agent(objects).args).toContain('--reboot-method=signal');
    expect(agentPod(objects).hostPID).toBe(true);
    expect(agent(objects).securityContext?.capabilities).toEqual({ add: ['KILL'] });
    expect(agent(objects).securityContext?.seLinuxOptions).toBeUndefined();
  });

  it('signal with a sentinel command on the host: both sets of capabilities', async () => {
    const objects = await renderAndApply('deploy/helm/capstan/examples/rhel.yaml', {
      agent: { config: { 'reboot-method': 'signal' } },
    });
    expect(agent(objects).securityContext?.capabilities?.add).toEqual([
      'SYS_ADMIN',
      'SYS_CHROOT',
      'SYS_PTRACE',
      'KILL',
    ]);
  });
});

describe('scheduling, resources and extras', () => {
  const tolerations = [{ key: 'dedicated', operator: 'Equal', value: 'infra', effect: 'NoSchedule' }];
  const resources = { requests: { cpu: '50m', memory: '80Mi' }, limits: { memory: '300Mi' } };
  const volume = { name: 'extra', emptyDir: {} };
  const mount = { name: 'extra', mountPath: '/extra' };
  const extraEnv = { name: 'TZ', value: 'Europe/Berlin' };
  it('tolerations, nodeSelector, affinity, resources, priority class, env, volumes, args land where they belong', async () => {
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'infra', operator: 'Exists' }] }],
        },
      },
    };
    const objects = await renderAndApply({
      coordinator: {
        tolerations,
        resources,
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        affinity,
        priorityClassName: 'system-cluster-critical',
        env: [extraEnv],
        volumes: [volume],
        volumeMounts: [mount],
        extraArgs: ['--log-format=pretty'],
        config: {
          'log-level': 'debug',
          'default-reboot-window': ['Sat,Sun 02:00-06:00 Europe/Berlin', '03:00-04:00'],
        },
        podDisruptionBudget: { minAvailable: null, maxUnavailable: 1 },
      },
      agent: { tolerations, resources, nodeSelector: { role: 'worker' }, config: { 'force-reboot': true } },
    });
    const pod = coordinatorPod(objects);
    expect(pod).toMatchObject({ tolerations, nodeSelector: { 'kubernetes.io/os': 'linux' }, affinity });
    expect(pod.priorityClassName).toBe('system-cluster-critical');
    expect(pod.volumes).toEqual([volume]);
    const c = coordinator(objects) as unknown as {
      env: unknown[];
      volumeMounts: unknown[];
      resources: unknown;
    };
    expect(c.resources).toEqual(resources);
    expect(c.env).toContainEqual(extraEnv);
    expect(c.volumeMounts).toEqual([mount]);
    const args = coordinator(objects).args;
    expect(args).toEqual(
      expect.arrayContaining([
        '--log-level=debug',
        '--default-reboot-window=Sat,Sun 02:00-06:00 Europe/Berlin',
        '--default-reboot-window=03:00-04:00',
      ]),
    );
    expect(args.at(-1)).toBe('--log-format=pretty');
    expect(find(objects, 'PodDisruptionBudget', 'capstan-coordinator')).toMatchObject({
      spec: { maxUnavailable: 1 },
    });
    expect(agentPod(objects)).toMatchObject({ tolerations, nodeSelector: { role: 'worker' } });
    expect(agent(objects).resources).toEqual(resources);
    expect(agent(objects).args).toContain('--force-reboot');
  });

  it('a disabled bind address drops its port and probes; another port moves them', async () => {
    const objects = await renderAndApply({
      coordinator: { config: { 'metrics-bind-address': '0', 'health-probe-bind-address': ':9443' } },
    });
    const c = coordinator(objects) as unknown as {
      ports: Array<{ name: string; containerPort: number }>;
      livenessProbe: unknown;
    };
    expect(c.ports.map((p) => p.name)).toEqual(['probes', 'fleetlock']);
    expect(c.ports[0]?.containerPort).toBe(9443);
    expect(c.livenessProbe).toBeDefined();
  });
});

describe('ServiceMonitor and PrometheusRule', () => {
  it('scrape both operators and alert on what they export, each alert with its runbook', async () => {
    const objects = await renderAndApply({
      metrics: {
        serviceMonitor: { enabled: true, labels: { release: 'kube-prometheus' } },
        prometheusRule: { enabled: true },
      },
    });
    expect(find(objects, 'ServiceMonitor', 'capstan-coordinator')).toMatchObject({
      metadata: { labels: { release: 'kube-prometheus' } },
    });
    find(objects, 'ServiceMonitor', 'capstan-agent');
    find(objects, 'Service', 'capstan-agent-metrics');
    const rule = find<{ spec: { groups: Array<{ rules: Array<Record<string, unknown>> }> } }>(
      objects,
      'PrometheusRule',
      'capstan',
    );
    const alerts = rule.spec.groups.flatMap((g) => g.rules);
    expect(alerts.map((a) => a.alert)).toEqual([
      'CapstanRebootGroupHalted',
      'CapstanNodeWaitingTooLong',
      'CapstanRebootFailed',
      'CapstanRebootNotVerified',
      'CapstanDrainFailed',
    ]);
    for (const alert of alerts) {
      const metrics = String(alert.expr).match(/capstan_[a-z_]+/g) ?? [];
      expect(metrics.length, String(alert.alert)).toBeGreaterThan(0);
      for (const metric of metrics) expect(exported(), `${alert.alert}: ${metric}`).toContain(metric);
      const url = (alert.annotations as { runbook_url: string }).runbook_url;
      expect(runbooks()).toContain(url.slice(url.lastIndexOf('/') + 1));
    }
  });

  it('metrics.secure: --metrics-secure, review RBAC, a reader role, https scrapes with a token', async () => {
    const objects = await renderAndApply({ metrics: { secure: true, serviceMonitor: { enabled: true } } });
    expect(coordinator(objects).args).toContain('--metrics-secure');
    expect(agent(objects).args).toContain('--metrics-secure');
    const auth = find<{ rules: unknown[] }>(objects, 'ClusterRole', 'capstan-metrics-auth');
    expect(auth.rules).toEqual([
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    ]);
    const binding = find<{ subjects: Array<{ name: string }> }>(
      objects,
      'ClusterRoleBinding',
      'capstan-metrics-auth',
    );
    expect(binding.subjects.map((s) => s.name)).toEqual(['capstan-coordinator', 'capstan-agent']);
    expect(find<{ rules: unknown[] }>(objects, 'ClusterRole', 'capstan-metrics-reader').rules).toEqual([
      { nonResourceURLs: ['/metrics'], verbs: ['get'] },
    ]);
    for (const name of ['capstan-coordinator', 'capstan-agent'])
      expect(
        find<{ spec: { endpoints: unknown[] } }>(objects, 'ServiceMonitor', name).spec.endpoints[0],
      ).toMatchObject({
        scheme: 'https',
        bearerTokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token',
        tlsConfig: { insecureSkipVerify: true },
      });
    // Off by default (existing scrapers keep working): no flag, no roles.
    const plain = await renderChart(env.namespace, { metrics: { serviceMonitor: { enabled: true } } });
    expect(coordinator(plain).args).not.toContain('--metrics-secure');
    expect(plain.some((o) => o.metadata?.name === 'capstan-metrics-auth')).toBe(false);
  });

  it("a subchart's config metrics-secure: the flag and that operator's review RBAC and reader role", async () => {
    const objects = await renderAndApply({
      versionOperator: { enabled: true, config: { 'metrics-secure': true } },
      capvcd: { enabled: true, config: { 'metrics-secure': true } },
    });
    for (const name of ['capstan-version-operator', 'capstan-capvcd']) {
      expect(container(objects, 'Deployment', name).args).toContain('--metrics-secure');
      const binding = find<{ subjects: unknown[] }>(objects, 'ClusterRoleBinding', `${name}-metrics-auth`);
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name, namespace: env.namespace }]);
      expect(find<{ rules: unknown[] }>(objects, 'ClusterRole', `${name}-metrics-auth`).rules).toHaveLength(
        2,
      );
      find(objects, 'ClusterRole', `${name}-metrics-reader`);
    }
  });

  it('are off by default', async () => {
    const kinds = (await renderChart(env.namespace)).map((o) => o.kind);
    expect(kinds).not.toContain('ServiceMonitor');
    expect(kinds).not.toContain('PrometheusRule');
  });
});

describe('the version operator and capvcd', () => {
  it('are off by default, their CRDs too', async () => {
    const names = (await renderChart(env.namespace)).map((o) => o.metadata?.name);
    expect(names).not.toContain('capstan-version-operator');
    expect(names).not.toContain('capstan-capvcd');
    expect(names).not.toContain('rebootstacks.operator.capstan.dev');
  });

  it('install with their CRDs into the release namespace when enabled', async () => {
    const objects = await renderAndApply({
      versionOperator: { enabled: true, config: { 'log-level': 'debug' } },
      capvcd: { enabled: true, replicas: 1, config: { concurrency: 4 } },
    });
    const crds = objects.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata?.name);
    expect(crds).toEqual(
      expect.arrayContaining([
        'rebootstacks.operator.capstan.dev',
        'vcdmachines.infrastructure.cluster.x-k8s.io',
      ]),
    );
    expect(container(objects, 'Deployment', 'capstan-version-operator').args).toContain('--log-level=debug');
    expect(container(objects, 'Deployment', 'capstan-capvcd').args).toContain('--concurrency=4');
    expect(find(objects, 'Deployment', 'capstan-capvcd')).toMatchObject({
      metadata: { labels: { 'cluster.x-k8s.io/provider': 'infrastructure-vcd' } },
      spec: { replicas: 1 },
    });
  });
});
