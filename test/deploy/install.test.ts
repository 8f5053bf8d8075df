/**
 * The operators installed as an admin installs them, on a control plane of this file's own (the
 * objects have fixed cluster-wide names): deploy/'s files applied in the documented order, then
 * the kustomize base, its overlays and the Helm chart rendered and applied with server-side
 * dry-run and strict field validation.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlane, type ManifestObject, readManifests } from '../../packages/envtest/src/index.js';
import { root } from '../packaging/packages.js';
import { type PodSpec, parsedBy, podSpec, renderChart } from './chart.js';
import { monitoringCrdFiles } from './monitoring-crds.js';
import { buildTools, render, TOOLS_BUILD_MS } from './tools.js';

beforeAll(buildTools, TOOLS_BUILD_MS);
/** The install order of the READMEs: namespace, CRDs, RBAC, admission policies, workloads. */
const ORDER = [
  'packages/coordinator/deploy/namespace.yaml',
  'packages/coordinator/deploy/crds/rebootgroups.yaml',
  'packages/coordinator/deploy/rbac.yaml',
  'packages/coordinator/deploy/admission-policy.yaml',
  'packages/coordinator/deploy/coordinator.yaml',
  'packages/agent/deploy/rbac.yaml',
  'packages/agent/deploy/admission-policy.yaml',
  'packages/agent/deploy/daemonset.yaml',
];

let plane: ControlPlane;
beforeAll(async () => {
  plane = await ControlPlane.start({ crds: await monitoringCrdFiles() });
}, 600_000);
afterAll(() => plane?.stop());

const kinds = (objects: ManifestObject[]) => objects.map((o) => o.kind);
/** The object with its containers' flags sorted: the chart renders them from a map, in key order. */
const sortedArgs = (o: ManifestObject | undefined) => {
  const spec = (o as { spec?: { template?: { spec?: PodSpec } } } | undefined)?.spec?.template?.spec;
  for (const c of spec?.containers ?? []) c.args = [...c.args].sort();
  return o;
};
/** The host paths the agent's pod mounts: host path → [mount path, read-only]. */
function hostMounts(pod: PodSpec): Record<string, [string, boolean]> {
  const [agent] = pod.containers;
  const mounts: Record<string, [string, boolean]> = {};
  for (const v of pod.volumes ?? []) {
    const m = agent?.volumeMounts?.find((vm) => vm.name === v.name);
    if (v.hostPath && m) mounts[v.hostPath.path] = [m.mountPath, m.readOnly === true];
  }
  return mounts;
}
const image = (objects: ManifestObject[], kind: string) =>
  (
    objects.find((o) => o.kind === kind) as {
      spec: { template: { spec: { containers: Array<{ image: string }> } } };
    }
  ).spec.template.spec.containers[0]?.image;

describe('installing the coordinator and the agent', () => {
  it('applies file by file in the documented order, the namespace first with Pod Security labels', async () => {
    for (const file of ORDER) await plane.applyObjects(readManifests(join(root, file)));
    const [namespace] = readManifests(join(root, ORDER[0] as string));
    expect(namespace?.metadata?.labels).toMatchObject({ 'pod-security.kubernetes.io/enforce': 'privileged' });
    // No file but namespace.yaml declares a Namespace, so none depends on a later one for it.
    for (const file of ORDER.slice(1))
      expect(kinds(readManifests(join(root, file)))).not.toContain('Namespace');
  });

  it('strict field validation refuses a field the schema does not know', async () => {
    const [deployment] = readManifests(join(root, 'packages/coordinator/deploy/coordinator.yaml'));
    const typo = { ...deployment, spec: { ...(deployment?.spec as object), replica: 3 } } as ManifestObject;
    await expect(plane.applyObjects([typo], { dryRun: true })).rejects.toThrow(
      /\.spec\.replica: field not declared in schema/,
    );
  });

  it('the kustomize base renders namespace, CRD, RBAC and policies before the workloads, and applies', async () => {
    const objects = await render('kustomize', ['build', 'deploy/kustomize/base']);
    const order = kinds(objects);
    expect(order[0]).toBe('Namespace');
    expect(order[1]).toBe('CustomResourceDefinition');
    expect(order.indexOf('Deployment')).toBeGreaterThan(order.indexOf('ValidatingAdmissionPolicyBinding'));
    expect(order.lastIndexOf('ValidatingAdmissionPolicyBinding')).toBeLessThan(order.indexOf('DaemonSet'));
    expect(image(objects, 'Deployment')).toBe('ghcr.io/capstan-dev/coordinator:0.1.0');
    expect(image(objects, 'DaemonSet')).toBe('ghcr.io/capstan-dev/agent:0.1.0');
    await plane.applyObjects(objects, { dryRun: true });
  });

  it('an overlay changes the registry, tag, replicas, the agent scheduling and resources, and applies', async () => {
    const objects = await render('kustomize', ['build', 'deploy/kustomize/overlays/example']);
    expect(image(objects, 'DaemonSet')).toBe('registry.example.com/capstan/agent:0.1.0-example');
    expect(
      (objects.find((o) => o.kind === 'Deployment') as { spec: { replicas: number } }).spec.replicas,
    ).toBe(1);
    const pod = podSpec(objects, 'DaemonSet', 'capstan-agent');
    expect(pod).toMatchObject({
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ operator: 'Exists' }],
    });
    expect(pod.containers[0]?.resources).toEqual({
      requests: { cpu: '20m', memory: '80Mi' },
      limits: { memory: '200Mi' },
    });
    expect(objects.map((o) => o.kind)).toEqual(expect.arrayContaining(['ServiceMonitor', 'PrometheusRule']));
    await plane.applyObjects(objects, { dryRun: true });
  });

  it("the monitoring component is the Helm chart's monitoring with default settings", async () => {
    // Its objects: the monitoring kinds, and the agents' metrics Service (the coordinator's is the base's).
    const monitoring = (o: ManifestObject) =>
      ['ServiceMonitor', 'PrometheusRule'].includes(o.kind as string) ||
      (o.kind === 'Service' && o.metadata?.name === 'capstan-agent-metrics');
    const component = (await render('kustomize', ['build', 'deploy/kustomize/overlays/example'])).filter(
      monitoring,
    );
    const chart = (
      await renderChart('capstan-system', {
        metrics: { serviceMonitor: { enabled: true }, prometheusRule: { enabled: true } },
      })
    ).filter(monitoring);
    const byKey = (objects: ManifestObject[]) =>
      new Map(objects.map((o) => [`${o.kind}/${o.metadata?.name}`, o]));
    expect(component.length).toBe(4);
    expect(byKey(component)).toEqual(byKey(chart));
  });

  const OVERLAYS: Record<string, { args: string[]; hostPID: boolean; hostRun: boolean }> = {
    flatcar: { args: ['--source=update-engine'], hostPID: false, hostRun: false },
    'debian-ubuntu': {
      args: ['--source=file', '--reboot-sentinel=/host/run/reboot-required'],
      hostPID: false,
      hostRun: true,
    },
    rhel: {
      args: [
        '--source=command',
        '--reboot-sentinel-command=needs-restarting -r',
        '--sentinel-host-namespaces',
        '--reboot-sentinel-needed-exit-codes=1',
        '--reboot-sentinel-not-needed-exit-codes=0',
      ],
      hostPID: true,
      hostRun: false,
    },
    'fedora-coreos': {
      args: [
        '--source=command',
        '--reboot-sentinel-command=rpm-ostree status --pending-exit-77',
        '--sentinel-host-namespaces',
        '--reboot-sentinel-needed-exit-codes=77',
        '--reboot-sentinel-not-needed-exit-codes=0',
      ],
      hostPID: true,
      hostRun: false,
    },
  };
  it.each(Object.keys(OVERLAYS))(
    'the %s overlay sets the agent source and its host access as the chart example does, and applies',
    async (name) => {
      const objects = await render('kustomize', ['build', `deploy/kustomize/overlays/${name}`]);
      const want = OVERLAYS[name] as (typeof OVERLAYS)[string];
      const pod = (objects.find((o) => o.kind === 'DaemonSet') as { spec: { template: { spec: PodSpec } } })
        .spec.template.spec;
      const agent = pod.containers[0] as PodSpec['containers'][number];
      expect(agent.args.filter((a) => /^--(source|reboot-sentinel|sentinel-host)/.test(a))).toEqual(
        want.args,
      );
      expect(pod.hostPID === true).toBe(want.hostPID);
      expect(agent.securityContext?.capabilities?.add ?? []).toEqual(
        want.hostPID ? ['SYS_ADMIN', 'SYS_CHROOT', 'SYS_PTRACE'] : [],
      );
      expect(agent.securityContext?.seLinuxOptions?.type).toBe(want.hostPID ? 'spc_t' : undefined);
      expect(agent.securityContext?.appArmorProfile?.type).toBe(want.hostPID ? 'Unconfined' : undefined);
      expect(pod.volumes?.some((v) => v.name === 'host-run' && v.hostPath?.path === '/run')).toBe(
        want.hostRun,
      );
      expect(agent.volumeMounts?.some((m) => m.mountPath === '/host/run' && m.readOnly)).toBe(want.hostRun);
      // Exactly the host paths its source reads, read-only where it only reads; never privileged.
      expect(hostMounts(pod)).toEqual({
        '/var/run/dbus': ['/var/run/dbus', false],
        '/etc/os-release': ['/host/etc/os-release', true],
        ...(want.hostRun ? { '/run': ['/host/run', true] } : {}),
      });
      expect(agent.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
      });
      expect(agent.securityContext?.privileged).toBeUndefined();
      await parsedBy('packages/agent/dist/main.js', agent.args);
      // The same DaemonSet as the Helm chart's example for these hosts (flags in any order).
      const chart = await renderChart('capstan-system', `deploy/helm/capstan/examples/${name}.yaml`);
      const daemonSet = (list: ManifestObject[]) => sortedArgs(list.find((o) => o.kind === 'DaemonSet'));
      expect(daemonSet(objects)).toEqual(daemonSet(chart));
      await plane.applyObjects(objects, { dryRun: true });
    },
  );

  it('the Helm chart with default values renders the kustomize base but its Namespace, and applies', async () => {
    const helm = await renderChart('capstan-system');
    const kustomize = (await render('kustomize', ['build', 'deploy/kustomize/base'])).filter(
      (o) => o.kind !== 'Namespace',
    );
    const byKey = (objects: ManifestObject[]) =>
      new Map(
        objects.map((o) => [`${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`, sortedArgs(o)]),
      );
    expect(byKey(helm)).toEqual(byKey(kustomize));
    await plane.applyObjects(helm, { dryRun: true });
  });

  it('the Helm chart moves everything into the release namespace, identities in the policies too', async () => {
    const objects = await renderChart('ops', { coordinator: { replicas: 3 } });
    const text = JSON.stringify(objects);
    expect(text).not.toContain('capstan-system');
    expect(text).toContain('system:serviceaccount:ops:capstan-agent');
    expect(objects.map((o) => o.kind)).not.toContain('Namespace');
    expect(
      (objects.find((o) => o.kind === 'Deployment') as { spec: { replicas: number } }).spec.replicas,
    ).toBe(3);
  });
});
