/**
 * The hand-off to the workload cluster's VCD cloud provider (CPI) and CSI driver, under real Cluster
 * API (its ClusterResourceSet controller applying to the workload cluster): the VCDCluster publishes
 * site, org, VDC, network, vApp name and a NO_RDE_ cluster id in its status, and the
 * `cloud-provider` flavor's ClusterResourceSet puts the very same values into the CPI's and CSI's
 * config maps (and the API token into vcloud-basic-auth) in the workload cluster's kube-system.
 */
import { defineResource, type KubeObject } from '@capstan/runtime';
import { ConfigMap, Secret } from '@capstan/runtime/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { cloudProviderObjects } from '../../src/clusterctl/cloud-provider.js';
import { VCDClusterType } from '../../src/index.js';
import { Harness } from './harness.js';

const ns = 'e2e-handoff';
let h: Harness;

const BindingType = defineResource<
  KubeObject & { spec?: { bindings?: Array<{ clusterResourceSetName: string }> } }
>({
  group: 'addons.cluster.x-k8s.io',
  version: 'v1beta2',
  kind: 'ClusterResourceSetBinding',
  plural: 'clusterresourcesetbindings',
  namespaced: true,
});

beforeAll(async () => {
  h = await Harness.start({ namespace: ns, taskLatencyMs: 150 });
  await h.prepareCluster('cp1');
  await h.startProvider();
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

/** The flavor's objects with clusterctl's variables filled as `generate cluster` would. */
function rendered(vars: Record<string, string>) {
  const text = JSON.stringify(cloudProviderObjects()).replace(
    /\$\{([A-Z0-9_]+)(?::=[^}]*)?\}/g,
    (_, k: string) => vars[k] ?? `<unset ${k}>`,
  );
  return JSON.parse(text) as ReturnType<typeof cloudProviderObjects>;
}

describe('the cloud-provider hand-off', () => {
  it('publishes what CPI and CSI need, and the ClusterResourceSet gives them the same', async () => {
    const vars = {
      CLUSTER_NAME: 'cp1',
      NAMESPACE: ns,
      VCD_SITE: h.sim.url,
      VCD_ORG: 'tenant-a',
      VCD_ORGVDC: 'vdc-a',
      VCD_ORGVDC_NETWORK: 'net-a',
      VCD_REFRESH_TOKEN_B64: Buffer.from('alice-api-token').toString('base64'),
    };
    const [cluster, ...rest] = h.clusterWith('cp1', {});
    const labelled = {
      ...cluster!,
      metadata: { ...cluster!.metadata, labels: { 'cluster.x-k8s.io/cluster-name': 'cp1' } },
    };
    await h.plane.createObjects([
      labelled,
      ...rest,
      ...rendered(vars),
      ...h.controlPlaneObjects('cp1', 'cp1-cp-0'),
    ]);

    const status = (
      await h.wait('the VCDCluster’s hand-off in status', async () => {
        const c = await h.client.get(VCDClusterType, { namespace: ns, name: 'cp1' });
        return c.status?.infraId && c.status.initialization?.provisioned ? c : undefined;
      })
    ).status!;
    expect(status).toMatchObject({
      site: h.sim.url,
      org: 'tenant-a',
      ovdc: 'vdc-a',
      ovdcNetwork: 'net-a',
      vappName: 'cp1',
      infraId: `NO_RDE_${ns}_cp1`,
    });

    // Cluster API's ClusterResourceSet controller applies them once the control plane is up.
    await h.wait(
      'the ClusterResourceSetBinding',
      async () =>
        (await h.client.get(BindingType, { namespace: ns, name: 'cp1' }).catch(() => undefined))?.spec
          ?.bindings?.length
          ? true
          : undefined,
      240_000,
    );
    const read = async (name: string, file: string) => {
      const cm = await h.wait(`kube-system/${name}`, () =>
        h.client.get(ConfigMap, { namespace: 'kube-system', name }).catch(() => undefined),
      );
      return parse(cm.data?.[file] ?? '') as {
        vcd: Record<string, string>;
        clusterid: string;
        loadbalancer?: { network: string };
      };
    };
    const ccm = await read('vcloud-ccm-configmap', 'vcloud-ccm-config.yaml');
    const csi = await read('vcloud-csi-configmap', 'vcloud-csi-config.yaml');
    for (const config of [ccm, csi]) {
      expect(config.vcd).toEqual({
        host: status.site,
        org: status.org,
        vdc: status.ovdc,
        vAppName: status.vappName,
      });
      expect(config.clusterid).toBe(status.infraId);
    }
    expect(ccm.loadbalancer?.network).toBe(status.ovdcNetwork);
    const auth = await h.client.get(Secret, { namespace: 'kube-system', name: 'vcloud-basic-auth' });
    expect(Buffer.from(auth.data?.refreshToken ?? '', 'base64').toString()).toBe('alice-api-token');
    // The management-cluster ConfigMap holds the two workload documents, nothing unfilled.
    const source = await h.client.get(ConfigMap, { namespace: ns, name: 'cp1-vcd-cloud-config' });
    const docs = parseAllDocuments(source.data?.['vcloud-config.yaml'] ?? '');
    expect(docs.map((d) => (d.toJS() as KubeObject).metadata.name)).toEqual([
      'vcloud-ccm-configmap',
      'vcloud-csi-configmap',
    ]);
    expect(source.data?.['vcloud-config.yaml']).not.toContain('<unset');
  }, 400_000);
});
