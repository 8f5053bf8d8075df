/**
 * A cluster from the default flavor, as a user makes it: `clusterctl generate cluster` (the real
 * clusterctl v1.14.2) from this provider's clusterctl repository, applied to a management cluster
 * with real Cluster API, KubeadmControlPlane and capvcd, on vcdsim (the MachineDeployment's
 * selector filled as Cluster API's defaulting webhook fills it: envtest installs no admission
 * webhooks). The guests play kubeadm
 * (stacked etcd, envtest's KubeadmGuest). It reaches Running: the control plane Available behind
 * the NSX-T ALB load balancer capvcd makes (its VIP the endpoint), the MachineDeployment's worker
 * Running, one VM per Machine.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type ManifestObject, resolveAssets, startWorkloadCluster } from '@capstan/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { clusterctlConfig, writeClusterctlRepository } from '../../src/clusterctl/repository.js';
import { MachineType, VCDClusterType } from '../../src/index.js';
import { Harness, SCALED_TIMINGS } from './harness.js';
import { getKcp, kcpCondition } from './kcp-status.js';

const run = promisify(execFile);
const ns = 'e2e-default-flavor';
const cluster = 'df1';
const root = mkdtempSync(join(tmpdir(), 'capvcd-flavor-repo-'));
const home = mkdtempSync(join(tmpdir(), 'capvcd-flavor-home-'));
let h: Harness;
let clusterctl: string;

beforeAll(async () => {
  clusterctl = (await resolveAssets({ with: ['clusterctl'] })).clusterctl?.binary as string;
  writeClusterctlRepository(root, 'v0.1.0');
  writeFileSync(join(root, 'clusterctl.yaml'), clusterctlConfig(root, 'v0.1.0'));
  h = await Harness.start({ namespace: ns, kubeadmControlPlane: true });
  // The workload cluster is the management plane itself (node-less Cluster API, kwok Nodes).
  await startWorkloadCluster(h.plane, { namespace: ns, clusterName: cluster, plane: h.plane });
  await h.startProvider({
    ...SCALED_TIMINGS,
    vcdCaPem: h.sim.caPem, // the flavor's Secret has no CA (VCD_CA_BUNDLE_B64 unset)
  });
}, 900_000);
afterAll(async () => {
  await h?.stop();
  rmSync(root, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** `clusterctl generate cluster` with the default flavor, pointed at vcdsim's tenant-a. */
async function generate(): Promise<ManifestObject[]> {
  const { stdout } = await run(
    clusterctl,
    [
      ...['generate', 'cluster', cluster, '--config', join(root, 'clusterctl.yaml')],
      ...['--infrastructure', 'capvcd:v0.1.0', '--target-namespace', ns, '--kubernetes-version', 'v1.35.0'],
      ...['--control-plane-machine-count', '1', '--worker-machine-count', '1'],
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        XDG_CONFIG_HOME: home,
        VCD_SITE: h.sim.url,
        VCD_ORG: 'tenant-a',
        VCD_ORGVDC: 'vdc-a',
        VCD_ORGVDC_NETWORK: 'net-a',
        VCD_CATALOG: 'templates',
        VCD_TEMPLATE_NAME: 'ubuntu-2404-kube-v1.35',
        VCD_USERNAME_B64: b64('alice'),
        VCD_PASSWORD_B64: b64('alice-password'),
        VCD_REFRESH_TOKEN_B64: '',
        SSH_AUTHORIZED_KEY: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE2x user',
      },
    },
  );
  return parseAllDocuments(stdout)
    .map((d) => d.toJSON() as ManifestObject | null)
    .filter((o): o is ManifestObject => o !== null);
}

/**
 * A MachineDeployment as Cluster API's defaulting webhook leaves it (envtest installs none): its
 * selector and its Machines' labels name the cluster and the deployment. Anything else as it is.
 */
function defaultedAsCapiWould(o: ManifestObject): ManifestObject {
  if (o.kind !== 'MachineDeployment') return o;
  const md = structuredClone(o) as ManifestObject & {
    spec: {
      clusterName: string;
      selector: { matchLabels?: Record<string, string> };
      template: { metadata?: { labels?: Record<string, string> } };
    };
  };
  const labels = {
    'cluster.x-k8s.io/cluster-name': md.spec.clusterName,
    'cluster.x-k8s.io/deployment-name': md.metadata?.name as string,
  };
  md.spec.selector.matchLabels = { ...md.spec.selector.matchLabels, ...labels };
  md.spec.template.metadata = {
    ...md.spec.template.metadata,
    labels: { ...md.spec.template.metadata?.labels, ...labels },
  };
  return md;
}

/** Cluster API's side of a timeout: Machines, the KCP and the MachineDeployment, their conditions. */
async function clusterState(): Promise<string> {
  const conditions = (o: {
    status?: { conditions?: Array<{ type: string; status: string; message?: string }> };
  }) =>
    (o.status?.conditions ?? [])
      .filter((c) => c.status !== 'True')
      .map((c) => `${c.type}=${c.status} ${c.message ?? ''}`)
      .join('; ');
  const lines: string[] = [];
  for (const path of [
    `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machines`,
    `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machinedeployments`,
    `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machinesets`,
    `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters`,
    `/apis/controlplane.cluster.x-k8s.io/v1beta2/namespaces/${ns}/kubeadmcontrolplanes`,
  ]) {
    const list = await h.plane.request('GET', path);
    for (const o of (
      list.body as {
        items: Array<{ kind?: string; metadata: { name: string }; status?: { phase?: string } }>;
      }
    ).items)
      lines.push(
        `${path.split('/').at(-1)} ${o.metadata.name} ${o.status?.phase ?? ''}: ${conditions(o as never)}`,
      );
  }
  return lines.join('\n');
}

describe('the default flavor on vcdsim', () => {
  it('reaches Running: KCP Available behind the load balancer, the worker Running, a VM each', {
    timeout: 600_000,
  }, async () => {
    const objects = await generate();
    expect(objects.map((o) => o.kind)).toEqual(
      expect.arrayContaining(['Cluster', 'KubeadmControlPlane', 'MachineDeployment', 'VCDCluster']),
    );
    await h.plane.createObjects(objects.map(defaultedAsCapiWould));
    const machines = await h
      .wait(
        'two Machines Running (control plane and worker)',
        async () => {
          const items = (await h.client.list(MachineType, { namespace: ns })).items;
          return items.length === 2 && items.every((m) => m.status?.phase === 'Running') ? items : undefined;
        },
        300_000,
      )
      .catch(async (err: Error) => {
        throw new Error(`${err.message}\n${await clusterState()}`);
      });
    expect(
      machines.filter((m) => m.metadata.labels?.['cluster.x-k8s.io/control-plane'] !== undefined),
    ).toHaveLength(1);
    const kcp = await h.wait('KCP Available', async () => {
      const k = await getKcp(h, ns, `${cluster}-control-plane`);
      return kcpCondition(k, 'Available')?.status === 'True' ? k : undefined;
    });
    expect(kcp.status?.initialization?.controlPlaneInitialized).toBe(true);
    expect(h.vcdObjects().vms).toHaveLength(2);
    const vcdCluster = await h.client.get(VCDClusterType, { namespace: ns, name: cluster });
    const [virtualService] = h.vcdObjects().virtualServices;
    expect(vcdCluster.spec.controlPlaneEndpoint?.host).toBe(virtualService?.virtualIpAddress);
    await h.wait('the control plane in the pool', async () =>
      h.vcdObjects().pools[0]?.members.length === 1 ? true : undefined,
    );
  });
});
