/**
 * The CRDs on a real apiserver: they install with CAPI's contract label, accept the objects users
 * write, and refuse what a schema can say (inline credentials, a malformed site or disk size, a
 * changed providerID, naming template or endpoint). Also: deploy/crds.yaml is what the schemas make.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { useControlPlane } from '@capstan/envtest/vitest';
import { Client, isInvalid } from '@capstan/runtime';
import { HttpTransport } from '@capstan/runtime/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { crdsYaml } from '../src/api/crds-yaml.js';
import {
  CONTRACT_LABEL,
  type VCDCluster,
  VCDClusterTemplateType,
  VCDClusterType,
  type VCDMachine,
  VCDMachineTemplateType,
  VCDMachineType,
} from '../src/index.js';

const env = useControlPlane('capvcd-crds');
const crdFile = fileURLToPath(new URL('../deploy/crds.yaml', import.meta.url));
let client: Client;

const cluster = (name: string, spec: Partial<VCDCluster['spec']> = {}): VCDCluster => ({
  metadata: { name, namespace: env.namespace },
  spec: {
    site: 'https://vcd.example.com',
    org: 'tenant-a',
    ovdc: 'vdc-a',
    ovdcNetwork: 'net-a',
    userContext: { secretRef: { name: 'creds' } },
    ...spec,
  },
});
const machine = (name: string, spec: Partial<VCDMachine['spec']> = {}): VCDMachine => ({
  metadata: { name, namespace: env.namespace },
  spec: { catalog: 'templates', template: 'ubuntu', ...spec },
});
const refused = async (write: Promise<unknown>) => {
  const err = await write.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isInvalid(err), String(err)).toBe(true);
  return String((err as Error).message);
};

beforeAll(async () => {
  await env.plane.installCRDs([crdFile]);
  client = new Client(new HttpTransport(env.kubeConfig));
});

describe('the capvcd CRDs', () => {
  it('deploy/crds.yaml is what src/api/schema.ts makes, each CRD with the v1beta2 contract label', () => {
    expect(readFileSync(crdFile, 'utf8')).toBe(crdsYaml());
    const crds = parseAllDocuments(readFileSync(crdFile, 'utf8')).map((d) => d.toJSON());
    expect(crds.map((c) => c.spec.names.kind)).toEqual([
      'VCDCluster',
      'VCDMachine',
      'VCDMachineTemplate',
      'VCDClusterTemplate',
      'VCDClusterIdentity',
    ]);
    for (const crd of crds) expect(crd.metadata.labels[CONTRACT_LABEL]).toBe('v1beta3');
    // Only a cluster administrator may grant a Secret to other namespaces.
    expect(crds.map((c) => c.spec.scope)).toEqual([
      'Namespaced',
      'Namespaced',
      'Namespaced',
      'Namespaced',
      'Cluster',
    ]);
  });

  it('keeps CAPVCD’s own fields (not pruned): its manifests apply as written', async () => {
    const capvcdFields = {
      rdeId: 'urn:vcloud:entity:vmware:capvcdCluster:0b1c',
      parentUid: '',
      useAsManagementCluster: false,
      proxyConfigSpec: { httpProxy: '', httpsProxy: '', noProxy: '' },
      ovcdZoneConfigMap: 'zones',
      multiZoneSpec: { zoneTopology: 'DCGroup' as const, dcGroupConfig: {} },
    };
    await client.create(VCDClusterType, cluster('capvcd-fields', capvcdFields));
    const read = await client.get(VCDClusterType, { namespace: env.namespace, name: 'capvcd-fields' });
    expect(read.spec).toMatchObject(capvcdFields);
    await client.create(
      VCDMachineType,
      machine('capvcd-fields', { enableNvidiaGPU: false, bootstrapped: true }),
    );
    const m = await client.get(VCDMachineType, { namespace: env.namespace, name: 'capvcd-fields' });
    expect(m.spec).toMatchObject({ enableNvidiaGPU: false, bootstrapped: true });
  });

  it('accepts the objects CAPVCD users write, templates included', async () => {
    await client.create(
      VCDClusterType,
      cluster('ok', { loadBalancerConfigSpec: { vipSubnet: '203.0.113.0/24' } }),
    );
    await client.create(
      VCDMachineType,
      machine('ok', { diskSize: '20Gi', sizingPolicy: 'small', extraOvdcNetworks: ['net-b'] }),
    );
    await client.create(VCDMachineTemplateType, {
      metadata: { name: 'ok', namespace: env.namespace },
      spec: { template: { spec: machine('x').spec } },
    });
    await client.create(VCDClusterTemplateType, {
      metadata: { name: 'ok', namespace: env.namespace },
      spec: { template: { spec: cluster('x').spec } },
    });
  });

  it('refuses inline credentials, a malformed site, one-arm load balancers and missing fields', async () => {
    const inline = cluster('inline');
    (inline.spec.userContext as unknown as Record<string, unknown>).password = 'hunter2';
    expect(await refused(client.create(VCDClusterType, inline))).toContain('never inline');
    await refused(client.create(VCDClusterType, cluster('site', { site: 'vcd.example.com' })));
    await refused(
      client.create(VCDClusterType, cluster('arm', { loadBalancerConfigSpec: { useOneArm: true } })),
    );
    const noOrg = cluster('noorg') as unknown as { spec: Record<string, unknown> };
    delete noOrg.spec.org;
    await refused(client.create(VCDClusterType, noOrg as unknown as VCDCluster));
  });

  it('takes ovdc and ovdcNetwork empty only where multiZoneSpec.zones name the VDCs (as CAPVCD)', async () => {
    const zones = [{ name: 'z1', ovdc: 'vdc-a', ovdcNetworkName: 'net-a' }];
    await client.create(
      VCDClusterType,
      cluster('zoned', { ovdc: '', ovdcNetwork: '', multiZoneSpec: { zoneTopology: 'DCGroup', zones } }),
    );
    expect(await refused(client.create(VCDClusterType, cluster('nowhere', { ovdc: '' })))).toContain(
      'unless multiZoneSpec.zones',
    );
    await refused(
      client.create(VCDClusterType, cluster('nozones', { ovdcNetwork: '', multiZoneSpec: { zones: [] } })),
    );
  });

  it('refuses a malformed disk size or providerID, and an empty template', async () => {
    await refused(client.create(VCDMachineType, machine('disk', { diskSize: '-5Gi' })));
    await refused(client.create(VCDMachineType, machine('pid', { providerID: 'vsphere://1234' })));
    await refused(client.create(VCDMachineType, machine('tpl', { template: '' })));
  });

  it('keeps providerID, vmNamingTemplate, site and a set endpoint immutable', async () => {
    const key = { namespace: env.namespace, name: 'imm' };
    await client.create(
      VCDMachineType,
      machine('imm', {
        vmNamingTemplate: '{{ .machine.name }}',
        providerID: 'vmware-cloud-director://urn:vcloud:vm:0e8f3c1a-5b7d-4c2e-9f10-123456789abc',
      }),
    );
    await refused(
      client.patch(VCDMachineType, key, 'merge', { spec: { vmNamingTemplate: 'x-{{ .machine.name }}' } }),
    );
    await refused(
      client.patch(VCDMachineType, key, 'merge', {
        spec: { providerID: 'vmware-cloud-director://urn:vcloud:vm:1e8f3c1a-5b7d-4c2e-9f10-123456789abc' },
      }),
    );
    await client.create(
      VCDClusterType,
      cluster('imm', { controlPlaneEndpoint: { host: '10.0.0.1', port: 6443 } }),
    );
    await refused(
      client.patch(VCDClusterType, key, 'merge', { spec: { site: 'https://other.example.com' } }),
    );
    await refused(
      client.patch(VCDClusterType, key, 'merge', {
        spec: { controlPlaneEndpoint: { host: '10.0.0.2', port: 6443 } },
      }),
    );
    // An endpoint not set yet may be set once (the provider records its VIP so).
    await client.create(VCDClusterType, cluster('later'));
    await client.patch(VCDClusterType, { namespace: env.namespace, name: 'later' }, 'merge', {
      spec: { controlPlaneEndpoint: { host: '10.0.0.3', port: 6443 } },
    });
  });
});
