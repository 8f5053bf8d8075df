/**
 * Cluster API v1beta2 against the real core manager and kubeadm bootstrap provider. The test is
 * the infrastructure provider: its kinds (TestCluster, TestMachine, TestMachineTemplate) are
 * defined here, not shipped, and it marks them provisioned as a provider would. The workload
 * cluster is a second control plane with kwok nodes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  aggregateToManagerLabel,
  ControlPlane,
  type CrdObject,
  startWorkloadCluster,
  type WorkloadCluster,
  withContractLabels,
} from '../src/index.js';
import { pollUntil } from '../src/wait.js';

const ns = 'capi-test';
const cluster = 'alpha';
const infraGroup = 'infrastructure.test.capstan.dev';
const infra = `/apis/${infraGroup}/v1alpha1/namespaces/${ns}`;
const capi = `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}`;
const bootstrap = `/apis/bootstrap.cluster.x-k8s.io/v1beta2/namespaces/${ns}`;
const version = 'v1.35.4';
let plane: ControlPlane;
let workload: WorkloadCluster;

/** A namespaced CRD of the test's infrastructure group, any fields allowed, status as a subresource. */
function infraCrd(kind: string, plural: string): CrdObject {
  return withContractLabels(
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${infraGroup}` },
      spec: {
        group: infraGroup,
        scope: 'Namespaced',
        names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
        versions: [
          {
            name: 'v1alpha1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    } as CrdObject,
    { contract: 'v1beta2', versions: ['v1alpha1'] },
  );
}

async function call(method: string, path: string, body?: unknown, contentType?: string): Promise<unknown> {
  const answer = await plane.request(method, path, body, contentType);
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}
const mergePatch = (path: string, body: unknown) => call('PATCH', path, body, 'application/merge-patch+json');
const ref = (apiGroup: string, kind: string, name: string) => ({ apiGroup, kind, name });

interface Item {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: {
    providerID?: string;
    bootstrap?: { dataSecretName?: string };
    infrastructureRef?: { name: string };
  };
  status?: {
    phase?: string;
    nodeRef?: { name: string };
    conditions?: Array<{ type: string; status: string }>;
    initialization?: { provisioned?: boolean };
  };
}
const list = async (path: string) => ((await call('GET', path)) as { items: Item[] }).items;

/**
 * Plays the infrastructure provider for every Machine whose bootstrap data is ready (a provider
 * needs it to boot the VM): its TestMachine gets a providerID and is provisioned, and the VM
 * joins the workload cluster as a kwok Node with that providerID.
 */
async function provision(handled: Set<string>): Promise<void> {
  for (const m of await list(`${capi}/machines`)) {
    const infraName = m.spec?.infrastructureRef?.name as string;
    if (!m.spec?.bootstrap?.dataSecretName || handled.has(infraName)) continue;
    handled.add(infraName);
    const providerID = `test://${infraName}`;
    await mergePatch(`${infra}/testmachines/${infraName}`, { spec: { providerID } });
    await mergePatch(`${infra}/testmachines/${infraName}/status`, {
      status: { initialization: { provisioned: true } },
    });
    await workload.plane.addNodes([{ name: infraName, providerID }]);
  }
}

beforeAll(async () => {
  plane = await ControlPlane.start({
    controllerManager: true,
    clusterApi: true,
    crds: [
      infraCrd('TestCluster', 'testclusters'),
      infraCrd('TestMachine', 'testmachines'),
      infraCrd('TestMachineTemplate', 'testmachinetemplates'),
    ],
  });
  // As every provider's RBAC does: the core manager may read and own the provider's kinds.
  await plane.createObjects([
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'test-infrastructure', labels: { [aggregateToManagerLabel]: 'true' } },
      rules: [{ apiGroups: [infraGroup], resources: ['*'], verbs: ['*'] }],
    },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
  ]);
  workload = await startWorkloadCluster(plane, { namespace: ns, clusterName: cluster });
});
afterAll(async () => {
  await workload?.stop();
  await plane?.stop();
});

describe('Cluster API v1beta2 with a test infrastructure provider', () => {
  it('bootstraps a control-plane Machine and a 2-replica MachineDeployment into Running Machines with nodeRefs', {
    timeout: 180_000,
  }, async () => {
    const infraRef = (kind: string, name: string) => ref(infraGroup, kind, name);
    await call('POST', `${infra}/testclusters`, {
      apiVersion: `${infraGroup}/v1alpha1`,
      kind: 'TestCluster',
      metadata: { name: cluster },
      spec: { controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 } },
    });
    await call('POST', `${capi}/clusters`, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { name: cluster },
      spec: { infrastructureRef: infraRef('TestCluster', cluster) },
    });
    await mergePatch(`${infra}/testclusters/${cluster}/status`, {
      status: { initialization: { provisioned: true } },
    });

    await call('POST', `${bootstrap}/kubeadmconfigs`, {
      apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
      kind: 'KubeadmConfig',
      metadata: { name: `${cluster}-cp-0` },
      spec: { format: 'cloud-config' },
    });
    await call('POST', `${infra}/testmachines`, {
      apiVersion: `${infraGroup}/v1alpha1`,
      kind: 'TestMachine',
      metadata: { name: `${cluster}-cp-0` },
      spec: {},
    });
    await call('POST', `${capi}/machines`, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      metadata: {
        name: `${cluster}-cp-0`,
        labels: { 'cluster.x-k8s.io/cluster-name': cluster, 'cluster.x-k8s.io/control-plane': '' },
      },
      spec: {
        clusterName: cluster,
        version,
        bootstrap: { configRef: ref('bootstrap.cluster.x-k8s.io', 'KubeadmConfig', `${cluster}-cp-0`) },
        infrastructureRef: infraRef('TestMachine', `${cluster}-cp-0`),
      },
    });

    await call('POST', `${bootstrap}/kubeadmconfigtemplates`, {
      apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta2',
      kind: 'KubeadmConfigTemplate',
      metadata: { name: `${cluster}-md` },
      spec: { template: { spec: { format: 'cloud-config' } } },
    });
    await call('POST', `${infra}/testmachinetemplates`, {
      apiVersion: `${infraGroup}/v1alpha1`,
      kind: 'TestMachineTemplate',
      metadata: { name: `${cluster}-md` },
      spec: { template: { spec: {} } },
    });
    const mdLabels = {
      'cluster.x-k8s.io/cluster-name': cluster,
      'cluster.x-k8s.io/deployment-name': `${cluster}-md`,
    };
    await call('POST', `${capi}/machinedeployments`, {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineDeployment',
      metadata: { name: `${cluster}-md`, labels: { 'cluster.x-k8s.io/cluster-name': cluster } },
      spec: {
        clusterName: cluster,
        replicas: 2,
        selector: { matchLabels: mdLabels },
        rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
        template: {
          metadata: { labels: mdLabels },
          spec: {
            clusterName: cluster,
            version,
            bootstrap: {
              configRef: ref('bootstrap.cluster.x-k8s.io', 'KubeadmConfigTemplate', `${cluster}-md`),
            },
            infrastructureRef: infraRef('TestMachineTemplate', `${cluster}-md`),
          },
        },
      },
    });

    // The provider's part: machines provisioned, and a Node per machine in the workload cluster.
    const handled = new Set<string>();
    const machines = await pollUntil('3 Machines Running with a nodeRef', 120_000, async () => {
      await provision(handled);
      const all = await list(`${capi}/machines`);
      const done =
        all.length === 3 && all.every((m) => m.status?.phase === 'Running' && m.status.nodeRef?.name);
      return done ? all : undefined;
    });
    for (const m of machines) expect(m.status?.nodeRef?.name).toBe(m.spec?.infrastructureRef?.name);

    // CABPK wrote every bootstrap Secret: cloud-config data under `value`, its format under `format`.
    for (const m of machines) {
      const secretName = m.spec?.bootstrap?.dataSecretName as string;
      expect(secretName).toBeTruthy();
      const secret = (await call('GET', `/api/v1/namespaces/${ns}/secrets/${secretName}`)) as {
        type: string;
        data: Record<string, string>;
      };
      expect(secret.type).toBe('cluster.x-k8s.io/secret');
      expect(Buffer.from(secret.data.format as string, 'base64').toString()).toBe('cloud-config');
      expect(Buffer.from(secret.data.value as string, 'base64').toString()).toMatch(
        /^## template: jinja\n#cloud-config|^#cloud-config/,
      );
    }
  });

  it('cluster.spec.paused pauses its Machines: a scale-up waits until it is unpaused', {
    timeout: 120_000,
  }, async () => {
    await mergePatch(`${capi}/clusters/${cluster}`, { spec: { paused: true } });
    await pollUntil('Machines Paused', 30_000, async () =>
      (await list(`${capi}/machines`)).every((m) =>
        m.status?.conditions?.some((c) => c.type === 'Paused' && c.status === 'True'),
      )
        ? true
        : undefined,
    );
    await mergePatch(`${capi}/machinedeployments/${cluster}-md`, { spec: { replicas: 3 } });
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await list(`${capi}/machines`)).toHaveLength(3);

    // The three Machines there are provisioned already; only the new one still needs it.
    const handled = new Set(
      (await list(`${capi}/machines`)).map((m) => m.spec?.infrastructureRef?.name as string),
    );
    await mergePatch(`${capi}/clusters/${cluster}`, { spec: { paused: false } });
    const machines = await pollUntil(
      'a fourth Machine Running, and none Paused, after unpausing',
      90_000,
      async () => {
        await provision(handled);
        const all = await list(`${capi}/machines`);
        const unpaused = all.every((m) =>
          m.status?.conditions?.some((c) => c.type === 'Paused' && c.status === 'False'),
        );
        return all.length === 4 && unpaused && all.every((m) => m.status?.phase === 'Running')
          ? all
          : undefined;
      },
    );
    expect(machines).toHaveLength(4);
  });
});
