/**
 * CAPVCD's v1beta2 (and v1beta1) against our v1beta3: a round trip through the hub loses nothing,
 * either way; the values that change shape (conditions, CAPVCD's always-written endpoint) map as
 * their meanings do.
 */
import type { KubeObject } from '@capstan/runtime';
import { ConversionRegistry } from '@capstan/runtime/webhook';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conversionSchemes } from '../src/api/conversion.js';
import { CONVERSION_DATA_ANNOTATION, GROUP } from '../src/api/keys.js';

const registry = new ConversionRegistry();
for (const scheme of conversionSchemes()) registry.add(scheme);
const convert = (o: KubeObject, version: string) =>
  registry.convertAll([structuredClone(o)], `${GROUP}/${version}`)[0] as KubeObject & Record<string, unknown>;

const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
/** Drops undefined members, as JSON does. */
const json = <T>(o: T): T => JSON.parse(JSON.stringify(o));
const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/);
const text = fc.string({ maxLength: 12 });
const time = fc
  .integer({ min: 0, max: 2_000_000_000 })
  .map((s) => new Date(s * 1000).toISOString().replace('.000Z', 'Z'));
const metadata = fc.record({
  name,
  namespace: fc.constant('tenant-a'),
  uid: fc.uuid(),
  annotations: opt(fc.dictionary(fc.constantFrom('a', 'example.com/b'), text, { maxKeys: 2 })),
});
const v1beta1Conditions = fc.array(
  fc.record(
    {
      type: fc.constantFrom('Ready', 'LoadBalancerAvailable', 'ContainerProvisioned'),
      status: fc.constantFrom('True', 'False', 'Unknown'),
      severity: fc.constantFrom('', 'Error', 'Warning', 'Info'),
      reason: text,
      message: text,
      lastTransitionTime: time,
    },
    { requiredKeys: ['type', 'status'] },
  ),
  { maxLength: 3 },
);
const endpoint = fc.record({
  host: fc.constantFrom('', '10.0.0.5', 'api.example.com'),
  port: fc.constantFrom(0, 6443),
});
const proxy = fc.record({ httpProxy: text, httpsProxy: text, noProxy: text }, { requiredKeys: [] });
const clusterSpec = fc.record(
  {
    controlPlaneEndpoint: endpoint,
    site: fc.constant('https://vcd.example.com'),
    org: name,
    ovdc: name,
    ovdcNetwork: name,
    userContext: fc.record({
      secretRef: fc.record({ name, namespace: fc.constantFrom('', 'tenant-a') }, { requiredKeys: ['name'] }),
    }),
    rdeId: text,
    parentUid: text,
    useAsManagementCluster: fc.boolean(),
    proxyConfigSpec: proxy,
    loadBalancerConfigSpec: fc.record(
      { useOneArm: fc.constant(false), vipSubnet: fc.constantFrom('', '203.0.113.0/24') },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['site', 'org', 'ovdc', 'ovdcNetwork', 'userContext'] },
);
const clusterStatus = fc.record(
  {
    ready: fc.boolean(),
    rdeVersionInUse: fc.constantFrom('', '1.1.0'),
    vappMetadataUpdated: fc.boolean(),
    conditions: v1beta1Conditions,
    site: text,
    org: text,
    infraId: text,
    vcdResourceMap: fc.record({
      ovdcs: fc.array(fc.record({ type: text, id: text, name: text }), { maxLength: 2 }),
    }),
    proxyConfig: proxy,
    loadBalancerConfig: fc.record({ vipSubnet: text }),
  },
  { requiredKeys: [] },
);
const vcdClusterV1beta2 = fc
  .record({ metadata, spec: clusterSpec, status: opt(clusterStatus) })
  .map((o) => json({ apiVersion: `${GROUP}/v1beta2`, kind: 'VCDCluster', ...o }) as KubeObject);

const machineSpec = fc.record(
  {
    providerID: fc.constant('vmware-cloud-director://urn:vcloud:vm:00000000-0000-0000-0000-000000000001'),
    catalog: name,
    template: name,
    sizingPolicy: fc.constantFrom('', 'small'),
    placementPolicy: fc.constantFrom('', 'rack-1'),
    storageProfile: fc.constantFrom('', '*', 'gold'),
    diskSize: fc.constantFrom('20Gi', 21474836480),
    bootstrapped: fc.boolean(),
    enableNvidiaGPU: fc.boolean(),
    extraOvdcNetworks: fc.array(name, { maxLength: 2 }),
    vmNamingTemplate: fc.constantFrom('', '{{ .machine.Name | trunc 10 }}'),
  },
  { requiredKeys: ['catalog', 'template'] },
);
const machineStatus = fc.record(
  {
    providerID: text,
    ready: fc.boolean(),
    addresses: fc.array(fc.record({ type: fc.constant('InternalIP'), address: fc.ipV4() }), { maxLength: 2 }),
    template: text,
    nvidiaGpuEnabled: fc.boolean(),
    diskSize: fc.constant('20Gi'),
    conditions: v1beta1Conditions,
  },
  { requiredKeys: [] },
);
const vcdMachineV1beta2 = fc
  .record({ metadata, spec: machineSpec, status: opt(machineStatus) })
  .map((o) => json({ apiVersion: `${GROUP}/v1beta2`, kind: 'VCDMachine', ...o }) as KubeObject);
const templateV1beta2 = fc.record({ metadata, spec: machineSpec }).map(({ metadata, spec }) =>
  json({
    apiVersion: `${GROUP}/v1beta2`,
    kind: 'VCDMachineTemplate',
    metadata,
    spec: { template: { spec } },
  }),
);
const clusterTemplateV1beta2 = fc.record({ metadata, spec: clusterSpec }).map(({ metadata, spec }) =>
  json({
    apiVersion: `${GROUP}/v1beta2`,
    kind: 'VCDClusterTemplate',
    metadata,
    spec: { template: { spec } },
  }),
);

/** Conversion drops an empty annotation map, as the API server does. */
const normalized = (o: KubeObject) => {
  const copy = structuredClone(o);
  if (Object.keys(copy.metadata.annotations ?? {}).length === 0) delete copy.metadata.annotations;
  return copy;
};

describe('v1beta2 → v1beta3 → v1beta2', () => {
  for (const [kind, arbitrary] of [
    ['VCDCluster', vcdClusterV1beta2],
    ['VCDMachine', vcdMachineV1beta2],
    ['VCDMachineTemplate', templateV1beta2],
    ['VCDClusterTemplate', clusterTemplateV1beta2],
  ] as const) {
    it(`loses nothing of a ${kind}`, () => {
      fc.assert(
        fc.property(arbitrary as fc.Arbitrary<KubeObject>, (o) => {
          const hub = convert(o, 'v1beta3');
          expect(hub.apiVersion).toBe(`${GROUP}/v1beta3`);
          expect(convert(hub, 'v1beta2')).toEqual(normalized(o));
        }),
      );
    });
  }

  it('loses nothing of a v1beta1 VCDMachine (no naming template, no extra networks)', () => {
    const v1beta1 = vcdMachineV1beta2.map((o) => {
      const spec = { ...(o as KubeObject & { spec: Record<string, unknown> }).spec };
      delete spec.extraOvdcNetworks;
      delete spec.vmNamingTemplate;
      return { ...o, apiVersion: `${GROUP}/v1beta1`, spec } as KubeObject;
    });
    fc.assert(
      fc.property(v1beta1, (o) => {
        expect(convert(convert(o, 'v1beta3'), 'v1beta1')).toEqual(normalized(o));
      }),
    );
  });
});

describe('v1beta3 → v1beta2 → v1beta3', () => {
  const hubCluster = fc
    .record({
      metadata,
      zones: fc.array(
        fc.record({ name, ovdc: name, ovdcNetworkName: name, controlPlaneZone: fc.boolean() }),
        {
          maxLength: 2,
        },
      ),
      disabled: opt(fc.boolean()),
      insecure: opt(fc.boolean()),
      conditions: fc.array(
        fc.record({
          type: fc.constantFrom('Ready', 'SpecHonoured'),
          status: fc.constantFrom('True', 'False'),
          reason: text,
          message: text,
          lastTransitionTime: time,
          observedGeneration: fc.nat(),
        }),
        { maxLength: 2 },
      ),
      vip: opt(fc.ipV4()),
      antiAffinity: opt(
        fc.record({
          controlPlane: opt(fc.constantFrom('Required', 'Preferred')),
          machineDeployments: opt(fc.constantFrom('Required', 'Preferred')),
        }),
      ),
      rules: fc.array(
        fc.record({
          name,
          id: name,
          ovdc: name,
          mandatory: fc.boolean(),
          members: fc.array(name, { maxLength: 3 }),
        }),
        { maxLength: 2 },
      ),
    })
    .map(
      (r) =>
        json({
          apiVersion: `${GROUP}/v1beta3`,
          kind: 'VCDCluster',
          metadata: r.metadata,
          spec: {
            site: 'https://vcd.example.com',
            org: 'o',
            ovdc: 'v',
            ovdcNetwork: 'n',
            userContext: { secretRef: { name: 's' } },
            controlPlaneEndpoint: { host: '10.0.0.9', port: 6443 },
            multiZoneSpec: { zones: r.zones },
            insecureSkipTLSVerify: r.insecure,
            loadBalancerConfigSpec: { disabled: r.disabled },
            antiAffinity: r.antiAffinity,
          },
          status: {
            initialization: { provisioned: true },
            ready: true,
            conditions: r.conditions,
            loadBalancer: { vip: r.vip },
            affinityRules: r.rules,
            observedGeneration: 3,
          },
        }) as KubeObject,
    );
  it('loses nothing of a VCDCluster (zones, TLS, the load-balancer switch, anti-affinity, our status)', () => {
    fc.assert(
      fc.property(hubCluster, (o) => {
        expect(convert(convert(o, 'v1beta2'), 'v1beta3')).toEqual(normalized(o));
      }),
    );
  });
  const hardware = fc.record({
    numCPUs: opt(fc.integer({ min: 1, max: 64 })),
    coresPerSocket: opt(fc.constant(1)),
    memoryMiB: opt(fc.integer({ min: 1, max: 1024 }).map((n) => n * 4)),
    dataDisks: opt(
      fc.array(
        fc.record({
          name,
          size: fc.constantFrom('10Gi', '40Gi', 1073741824),
          storageProfile: opt(name),
          busType: opt(fc.constantFrom('paravirtual', 'lsilogicsas', 'sata', 'nvme')),
        }),
        { maxLength: 3 },
      ),
    ),
    powerOffMode: opt(fc.constantFrom('hard', 'trySoft', 'soft')),
    guestSoftPowerOffTimeoutSeconds: opt(fc.integer({ min: 1, max: 600 })),
  });
  const hubMachine = fc.record({ metadata, hardware, requested: opt(time) }).map(
    (r) =>
      json({
        apiVersion: `${GROUP}/v1beta3`,
        kind: 'VCDMachine',
        metadata: r.metadata,
        spec: { catalog: 'c', template: 't', ...r.hardware },
        status: { vmName: 'vm-1', guestShutdownRequestedAt: r.requested },
      }) as KubeObject,
  );
  it('loses nothing of a VCDMachine’s own hardware, power-off mode and shutdown time (v1beta2, v1beta1)', () => {
    fc.assert(
      fc.property(hubMachine, fc.constantFrom('v1beta2', 'v1beta1'), (o, spoke) => {
        expect(convert(convert(o, spoke), 'v1beta3')).toEqual(normalized(o));
      }),
    );
  });
});

describe('what each field becomes', () => {
  const cluster = (spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject =>
    ({
      apiVersion: `${GROUP}/v1beta2`,
      kind: 'VCDCluster',
      metadata: { name: 'c', namespace: 'tenant-a' },
      spec: { site: 'https://vcd.example.com', org: 'o', ovdc: 'v', ovdcNetwork: 'n', ...spec },
      ...(status ? { status } : {}),
    }) as KubeObject;

  it('reads CAPVCD’s {host: "", port: 0} as no endpoint, and a host as the VIP asked for', () => {
    expect(
      convert(cluster({ controlPlaneEndpoint: { host: '', port: 0 } }), 'v1beta3').spec,
    ).not.toHaveProperty('controlPlaneEndpoint');
    expect(
      (
        convert(cluster({ controlPlaneEndpoint: { host: '203.0.113.20', port: 0 } }), 'v1beta3')
          .spec as Record<string, unknown>
      ).controlPlaneEndpoint,
    ).toEqual({ host: '203.0.113.20' });
  });

  it('keeps CAPVCD’s status fields in the annotation, not in our status, but the hand-off’s', () => {
    const hub = convert(cluster({}, { ready: true, rdeVersionInUse: '1.1.0', infraId: 'urn:x' }), 'v1beta3');
    // infraId is ours too (the CPI/CSI hand-off): the reconciler writes its own over CAPVCD's.
    expect(hub.status).toEqual({ ready: true, infraId: 'urn:x' });
    expect(JSON.parse(hub.metadata.annotations?.[CONVERSION_DATA_ANNOTATION] as string)).toEqual(
      expect.arrayContaining([{ path: ['status', 'rdeVersionInUse'], value: '1.1.0' }]),
    );
  });

  it('gives our False conditions a severity, as Cluster API v1beta1 reads them', () => {
    const hub = {
      ...cluster({}),
      apiVersion: `${GROUP}/v1beta3`,
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'NoFreeIP',
            message: 'm',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
      },
    } as KubeObject;
    expect((convert(hub, 'v1beta2').status as { conditions: unknown[] }).conditions).toEqual([
      {
        type: 'Ready',
        status: 'False',
        severity: 'Warning',
        reason: 'NoFreeIP',
        message: 'm',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ]);
  });
});
