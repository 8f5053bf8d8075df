/**
 * CAPVCD users' objects, through the real API server, real Cluster API (core + CABPK) and vcdsim:
 * CAPVCD's v1beta2 and v1beta1 served by our conversion webhook (written in one version, read in
 * another, nothing lost); and CAPVCD's own published examples (test/fixtures/capvcd/, their source
 * noted in each), their variables filled by the real clusterctl (`generate yaml`), applied as
 * `kubectl apply --server-side` applies them (fieldValidation=Strict), and reconciled as far as
 * the harness's Cluster API goes: the VCDCluster provisioned with its load balancer; CAPVCD's
 * machine templates stored whole. KubeadmControlPlane's manager is not in the harness, so no
 * Machine is made (MachineSets wait for a stable control plane); Cluster API's own v1beta1 objects
 * are converted by its managers' webhooks, as in a cluster.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  type Assets,
  type ManifestObject,
  readManifests,
  resolveAssets,
  withContractLabels,
} from '@capstan/envtest';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  VCDClusterV1beta2Type,
  VCDMachineV1beta1Type,
  VCDMachineV1beta2Type,
} from '../../src/api/generated/types.js';
import {
  CONVERSION_DATA_ANNOTATION,
  type VCDCluster,
  VCDClusterTemplateType,
  VCDClusterType,
  VCDMachineTemplateType,
  VCDMachineType,
} from '../../src/index.js';
import { applyStrict } from './apply-strict.js';
import { Harness, SCALED_TIMINGS } from './harness.js';

const run = promisify(execFile);
const ns = 'e2e-capvcd';
const fixture = (file: string) => join(import.meta.dirname, '..', 'fixtures', 'capvcd', file);
const home = mkdtempSync(join(tmpdir(), 'capvcd-compat-home-'));
let h: Harness;
let assets: Assets;

beforeAll(async () => {
  assets = await resolveAssets({ with: ['cluster-api', 'clusterctl'] });
  h = await Harness.start({ namespace: ns, conversionWebhook: true });
  // KubeadmControlPlane's CRDs, so that CAPVCD's KubeadmControlPlane objects apply (no manager).
  const kcp = (assets.clusterctl as NonNullable<Assets['clusterctl']>).kubeadmControlPlaneCrdDir;
  await h.plane.installCRDs(
    readdirSync(kcp)
      .filter((f) => f.endsWith('.yaml'))
      .flatMap((f) => readManifests(join(kcp, f)))
      .map((crd) => withContractLabels(crd)),
  );
  await h.startProvider({
    ...SCALED_TIMINGS,
    vcdCaPem: h.sim.caPem, // CAPVCD's Secret has no ca.crt
  });
}, 900_000);
afterAll(async () => {
  await h?.stop();
  rmSync(home, { recursive: true, force: true });
});

const b64 = (s: string) => Buffer.from(s).toString('base64');
/** What a CAPVCD user sets for its templates, pointed at vcdsim's tenant-a. */
const variables = (cluster: string): Record<string, string> => ({
  CLUSTER_NAME: cluster,
  CLUSTER_CLASS_NAME: `${cluster}-class`,
  TARGET_NAMESPACE: ns,
  POD_CIDR: '100.96.0.0/11',
  SERVICE_CIDR: '100.64.0.0/13',
  VCD_USERNAME_B64: b64('alice'),
  VCD_PASSWORD_B64: b64('alice-password'),
  VCD_REFRESH_TOKEN_B64: '',
  VCD_SITE: h.sim.url,
  VCD_ORGANIZATION: 'tenant-a',
  VCD_ORGANIZATION_VDC: 'vdc-a',
  VCD_ORGANIZATION_VDC_NETWORK: 'net-a',
  VCD_RDE_ID: 'urn:vcloud:entity:vmware:capvcdCluster:00000000-0000-0000-0000-0000000000aa',
  VCD_VIP_CIDR: '203.0.113.0/24',
  HTTP_PROXY: '',
  HTTPS_PROXY: '',
  NO_PROXY: '',
  VCD_CATALOG: 'templates',
  VCD_TEMPLATE_NAME: 'ubuntu-2404-kube-v1.35',
  VCD_CONTROL_PLANE_SIZING_POLICY: 'small',
  VCD_CONTROL_PLANE_PLACEMENT_POLICY: '',
  VCD_CONTROL_PLANE_STORAGE_PROFILE: '',
  VCD_WORKER_SIZING_POLICY: '',
  VCD_WORKER_PLACEMENT_POLICY: '',
  VCD_WORKER_STORAGE_PROFILE: '',
  DISK_SIZE: '20Gi',
  DNS_VERSION: 'v1.11.1',
  ETCD_VERSION: 'v3.5.16',
  SSH_PUBLIC_KEY: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE2x capvcd-user',
  CONTROL_PLANE_MACHINE_COUNT: '1',
  WORKER_POOL_NAME: 'md-0',
  WORKER_MACHINE_COUNT: '2',
  KUBERNETES_VERSION: 'v1.35.0',
});

/** The fixture with its variables filled by the real clusterctl. */
async function generate(file: string, cluster: string): Promise<ManifestObject[]> {
  const { stdout } = await run(
    assets.clusterctl?.binary as string,
    ['generate', 'yaml', '--from', fixture(file)],
    { env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: home, ...variables(cluster) } },
  );
  return parseAllDocuments(stdout)
    .map((d) => d.toJSON() as ManifestObject | null)
    .filter((o): o is ManifestObject => o !== null);
}

/** What Cluster API's core manager last logged as an error (to explain a wait that timed out). */
const capiErrors = () =>
  readFileSync(join(dirname(h.plane.kubeconfigPath), 'capi-manager.log'), 'utf8')
    .split('\n')
    .filter((l) => /error|fail/i.test(l))
    .slice(-8)
    .join('\n');
const provisioned = (name: string) =>
  eventually(
    async () => {
      const c = await h.client.get(VCDClusterType, { namespace: ns, name });
      return c.status?.initialization?.provisioned ? c : undefined;
    },
    { what: `VCDCluster ${name} provisioned`, timeoutMs: 120_000, intervalMs: 500, details: capiErrors },
  );
const conditionOf = (c: VCDCluster, type: string) => c.status?.conditions?.find((x) => x.type === type);

describe('CAPVCD’s v1beta2 and v1beta1, converted by the webhook the API server calls', () => {
  const base = {
    site: 'https://vcd.example.com',
    org: 'tenant-a',
    ovdc: 'vdc-a',
    ovdcNetwork: 'net-a',
    userContext: { secretRef: { name: 'creds', namespace: '' } },
  };

  it('stores a v1beta2 VCDCluster as v1beta3 and serves it back as written', async () => {
    const key = { namespace: ns, name: 'old-style' };
    const spec = {
      ...base,
      controlPlaneEndpoint: { host: '', port: 0 },
      rdeId: 'urn:vcloud:entity:vmware:capvcdCluster:1',
      proxyConfigSpec: { noProxy: '.svc' },
    };
    await h.client.create(VCDClusterV1beta2Type, { metadata: key, spec });
    const hub = await h.client.get(VCDClusterType, key);
    expect(hub.apiVersion).toBe('infrastructure.cluster.x-k8s.io/v1beta3');
    expect(hub.spec.controlPlaneEndpoint).toBeUndefined(); // CAPVCD's {"", 0} is "none"
    expect(hub.spec.rdeId).toBe(spec.rdeId);
    const back = await h.client.get(VCDClusterV1beta2Type, key);
    expect(back.spec).toEqual(spec);
  });

  it('keeps v1beta3-only fields through a read and an update in v1beta2', async () => {
    const key = { namespace: ns, name: 'new-style' };
    const zones = [{ name: 'z1', ovdc: 'vdc-a', ovdcNetworkName: 'net-a', controlPlaneZone: true }];
    await h.client.create(VCDClusterType, {
      metadata: key,
      spec: {
        ...base,
        controlPlaneEndpoint: { host: 'api.example.com', port: 6443 },
        loadBalancerConfigSpec: { disabled: true },
        multiZoneSpec: { zones },
      },
    });
    const old = await h.client.get(VCDClusterV1beta2Type, key);
    expect(old.spec).not.toHaveProperty('multiZoneSpec');
    expect(old.metadata.annotations?.[CONVERSION_DATA_ANNOTATION]).toContain('"multiZoneSpec"');
    await h.client.update(VCDClusterV1beta2Type, { ...old, spec: { ...old.spec, rdeId: 'urn:x' } });
    const hub = await h.client.get(VCDClusterType, key);
    expect(hub.spec.multiZoneSpec?.zones).toEqual(zones);
    expect(hub.spec.loadBalancerConfigSpec).toEqual({ disabled: true });
    expect(hub.spec.rdeId).toBe('urn:x');
    expect(hub.metadata.annotations?.[CONVERSION_DATA_ANNOTATION]).toBeUndefined();
  });

  it('serves a VCDMachine in v1beta2 and the deprecated v1beta1', async () => {
    const key = { namespace: ns, name: 'm-old' };
    const spec = {
      catalog: 'templates',
      template: 'ubuntu-2404-kube-v1.35',
      storageProfile: '',
      diskSize: '20Gi',
      vmNamingTemplate: '{{ .machine.Name | trunc 10 }}',
      extraOvdcNetworks: ['net-a-storage'],
    };
    await h.client.create(VCDMachineV1beta2Type, { metadata: key, spec });
    expect((await h.client.get(VCDMachineType, key)).spec).toEqual(spec);
    const v1beta1 = await h.client.get(VCDMachineV1beta1Type, key);
    expect(v1beta1.spec).toEqual({
      catalog: 'templates',
      template: 'ubuntu-2404-kube-v1.35',
      storageProfile: '',
      diskSize: '20Gi',
    });
    await h.client.update(VCDMachineV1beta1Type, {
      ...v1beta1,
      spec: { ...v1beta1.spec, sizingPolicy: 'small' },
    });
    expect((await h.client.get(VCDMachineType, key)).spec).toEqual({ ...spec, sizingPolicy: 'small' });
  });
});

describe('CAPVCD’s published examples', () => {
  it('templates/cluster-template.yaml applies strictly; the VCDCluster gets its load balancer', async () => {
    const objects = await generate('cluster-template.yaml', 'capvcd-tpl');
    expect(objects.map((o) => `${o.apiVersion} ${o.kind}`)).toContain(
      'infrastructure.cluster.x-k8s.io/v1beta2 VCDCluster',
    );
    // Cluster API's own v1beta1 objects go through its conversion webhook (envtest's CRDs call
    // the managers' /convert), stored as v1beta2 with their references intact.
    const capi = (o: ManifestObject) => o.kind === 'Cluster' || o.kind === 'MachineDeployment';
    for (const o of objects.filter((o) => !capi(o))) await applyStrict(h.plane, o);
    // Cluster API v1.14's own CRD refuses the template's `selector: {matchLabels: null}` (not a
    // field of ours): that one refusal is checked, then `{}` is put there.
    const md = objects.find((o) => o.kind === 'MachineDeployment') as ManifestObject & {
      spec: { selector: { matchLabels: unknown } };
    };
    await expect(applyStrict(h.plane, md, { dryRun: true })).rejects.toThrow(
      /spec.selector.matchLabels in body must be of type object/,
    );
    md.spec.selector.matchLabels = {};
    for (const o of objects.filter(capi)) await applyStrict(h.plane, o);
    const stored = await h.plane.request(
      'GET',
      `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machinedeployments/capvcd-tpl-md-0`,
    );
    expect(
      (stored.body as { spec: { template: { spec: { infrastructureRef: unknown } } } }).spec.template.spec
        .infrastructureRef,
    ).toEqual({
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'VCDMachineTemplate',
      name: 'capvcd-tpl-md-0',
    });
    const cluster = await provisioned('capvcd-tpl');
    const vip = cluster.spec.controlPlaneEndpoint?.host as string;
    expect(vip).toMatch(/^203\.0\.113\.\d+$/);
    expect(h.vcdObjects().virtualServices.map((v) => v.virtualIpAddress)).toContain(vip);
    // rdeId is CAPVCD's: accepted, named as not acted on.
    expect(conditionOf(cluster, 'SpecHonoured')?.message).toContain('rdeId');
    // CAPVCD's v1beta2 machine templates, stored as v1beta3 with every field ("" storage profile:
    // none). No worker Machine is made from them here: Cluster API's MachineSet preflight waits for
    // a stable control plane, and KubeadmControlPlane's manager is not in the harness.
    const workers = await h.client.get(VCDMachineTemplateType, { namespace: ns, name: 'capvcd-tpl-md-0' });
    expect(workers.spec.template.spec).toEqual({
      catalog: 'templates',
      template: 'ubuntu-2404-kube-v1.35',
      sizingPolicy: null,
      placementPolicy: null,
      storageProfile: '',
      diskSize: '20Gi',
      enableNvidiaGPU: false,
    });
    // Read back as CAPVCD wrote it.
    const asWritten = await h.client.get(VCDClusterV1beta2Type, { namespace: ns, name: 'capvcd-tpl' });
    expect(asWritten.spec.loadBalancerConfigSpec).toEqual({ vipSubnet: '203.0.113.0/24' });
  }, 300_000);

  it('templates/cluster-class-template.yaml applies strictly; its templates are stored as written', async () => {
    const objects = await generate('cluster-class-template.yaml', 'capvcd-cc');
    expect(objects.map((o) => o.kind)).toEqual(
      expect.arrayContaining(['ClusterClass', 'VCDClusterTemplate', 'VCDMachineTemplate']),
    );
    for (const o of objects) await applyStrict(h.plane, o);
    // The class's infrastructure templates, read back in v1beta3 (no field pruned). Its topology is
    // not reconciled here (the harness's Cluster API runs without the ClusterTopology gate).
    const template = await h.client.get(VCDClusterTemplateType, {
      namespace: ns,
      name: 'capvcd-cc-class-cluster',
    });
    expect(template.spec.template.spec).toMatchObject({
      site: h.sim.url,
      rdeId: variables('capvcd-cc').VCD_RDE_ID,
      useAsManagementCluster: false,
      loadBalancerConfigSpec: { vipSubnet: '203.0.113.0/24' },
      proxyConfigSpec: { httpProxy: null, httpsProxy: null, noProxy: null },
    });
    const workers = await h.client.get(VCDMachineTemplateType, {
      namespace: ns,
      name: 'capvcd-cc-class-worker-template',
    });
    expect(workers.spec.template.spec).toMatchObject({
      sizingPolicy: null,
      storageProfile: '',
      diskSize: '20Gi',
    });
  }, 300_000);
});
