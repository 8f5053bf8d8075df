/**
 * Takeover of one of CAPVCD's multi-zone clusters (zoneTopology DCGroup), under real Cluster API on
 * vcdsim with a data center group stretching net-a over vdc-a and vdc-a2. VCD holds what CAPVCD
 * makes for such a cluster (capvcd-layout.ts): per zone and node pool a vApp
 * `<cluster>_<VDC UUID>_<pool>` with `CapvcdInfraId` metadata (the control plane's in zone 1,
 * the workers' in zones 1 and 2), the VMs on the group's network, one load balancer on its edge
 * gateway; the VCDCluster as CAPVCD keeps it (`ovdc` and `ovdcNetwork` empty, the zones, the
 * statuses) with the opt-in annotation. capvcd adopts it with no VCD write (no VM made or
 * deleted), the same VIP and VMs, every Machine Running; a machine of a new MachineDeployment
 * then gets the vApp CAPVCD would have made for it; deleting the cluster removes every VM and vApp
 * and the load balancer.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ADOPT_CAPVCD_ANNOTATION, providerIdFor, VCDClusterType, VCDMachineType } from '../../src/index.js';
import { type CapvcdLayout, expectUntouched, layOutDcGroupAsCapvcd } from './capvcd-layout.js';
import { Harness, SEED } from './harness.js';

const ns = 'e2e-takeover-dcg';
const infraId = 'urn:vcloud:entity:vmware:capvcdCluster:7d2e51c4-0b8a-4f3e-9a65-1c2b3d4e5f60';
const zones = [
  { name: 'zone-1', ovdc: 'vdc-a', ovdcNetworkName: 'net-a', controlPlaneZone: true },
  { name: 'zone-2', ovdc: 'vdc-a2', ovdcNetworkName: 'net-a' },
];
/** Machine name → its zone, its pool's label (KubeadmControlPlane's or MachineDeployment's). */
const MACHINES = [
  { name: 'd1-cp-0', zone: 'zone-1', vdc: 'vdc-a', pool: 'd1-cp', controlPlane: true },
  { name: 'd1-md-0-a1', zone: 'zone-1', vdc: 'vdc-a', pool: 'd1-md-0', controlPlane: false },
  { name: 'd1-md-0-b2', zone: 'zone-2', vdc: 'vdc-a2', pool: 'd1-md-0', controlPlane: false },
];
let h: Harness;
let layout: CapvcdLayout & { vapps: Map<string, string> };

/** The tests' seed with a data center group: net-a stretched over vdc-a and vdc-a2. */
function dcGroupSeed(): string {
  const seed = parse(readFileSync(SEED, 'utf8')) as { orgs: Array<{ name: string; vdcGroups?: unknown[] }> };
  const org = seed.orgs.find((o) => o.name === 'tenant-a') as { vdcGroups?: unknown[] };
  org.vdcGroups = [{ name: 'dcg-a', vdcs: ['vdc-a', 'vdc-a2'], networks: ['net-a'] }];
  const path = join(tmpdir(), `capvcd-dc-group-seed-${process.pid}.yaml`);
  writeFileSync(path, stringify(seed));
  return path;
}

beforeAll(async () => {
  h = await Harness.start({ namespace: ns, taskLatencyMs: 100, seed: dcGroupSeed() });
  await h.prepareCluster('d1');
  layout = await layOutDcGroupAsCapvcd({ url: h.sim.url, caPem: h.sim.caPem }, 'd1', infraId, 'net-a', [
    { vdc: 'vdc-a', pool: 'd1-cp', controlPlane: true, machines: ['d1-cp-0'] },
    { vdc: 'vdc-a', pool: 'd1-md-0', machines: ['d1-md-0-a1'] },
    { vdc: 'vdc-a2', pool: 'd1-md-0', machines: ['d1-md-0-b2'] },
  ]);
}, 900_000);
afterAll(async () => {
  await h?.stop();
});

/** The cluster's objects as a CAPVCD user has them, plus the opt-in annotation. */
async function applyCapvcdCluster(): Promise<void> {
  const machineObjects = MACHINES.flatMap((m) =>
    h.machineObjects('d1', m.name, {
      controlPlane: m.controlPlane,
      failureDomain: m.zone,
      vcdMachine: { providerID: providerIdFor(layout.vms.get(m.name)?.urn as string), failureDomain: m.zone },
    }),
  );
  const objects = [...h.clusterWith('d1', { vip: layout.vip, zones }), ...machineObjects].map((o) => {
    const metadata = o.metadata as { name: string; labels?: Record<string, string> };
    if (o.kind === 'VCDCluster') {
      // As CAPVCD keeps a DC-group cluster: no VDC or network of its own, the zones name them.
      const spec = o.spec as Record<string, unknown>;
      return {
        ...o,
        metadata: { ...metadata, annotations: { [ADOPT_CAPVCD_ANNOTATION]: infraId } },
        spec: {
          ...spec,
          ovdc: '',
          ovdcNetwork: '',
          multiZoneSpec: { zoneTopology: 'DCGroup', dcGroupConfig: {}, zones },
        },
      };
    }
    const m = MACHINES.find((x) => x.name === metadata.name);
    if (!m || (o.kind !== 'Machine' && o.kind !== 'VCDMachine')) return o;
    // Cluster API's labels naming the node pool, on the Machine and its infrastructure machine
    // (KubeadmControlPlane labels both); not on the control plane's Machine here, as Cluster API
    // would not delete a Machine that names a KubeadmControlPlane this test does not run.
    if (m.controlPlane && o.kind === 'Machine') return o;
    const pool = m.controlPlane
      ? { 'cluster.x-k8s.io/control-plane-name': m.pool }
      : { 'cluster.x-k8s.io/deployment-name': m.pool };
    return { ...o, metadata: { ...metadata, labels: { ...metadata.labels, ...pool } } };
  });
  await h.plane.createObjects(objects);
  await h.client.patchStatus(VCDClusterType, { namespace: ns, name: 'd1' }, 'merge', {
    status: { ready: true, infraId, rdeVersionInUse: '1.1.0', vappMetadataUpdated: true },
  });
  for (const m of MACHINES)
    await h.client.patchStatus(VCDMachineType, { namespace: ns, name: m.name }, 'merge', {
      status: {
        ready: true,
        bootstrapped: true,
        failureDomain: m.zone,
        addresses: [
          { type: 'InternalIP', address: layout.vms.get(m.name)?.ip },
          { type: 'Hostname', address: m.name },
        ],
      },
    });
}

describe('takeover of a CAPVCD DC-group cluster', () => {
  it('adopts the per-zone, per-pool vApps, VMs and load balancer with no VCD write', async () => {
    const before = h.vcdObjects();
    const vdcOf = (vdcId: string) => h.sim.inspect.world.vdcs.get(vdcId)?.name;
    expect(before.vapps.map((a) => [a.name, vdcOf(a.vdcId)]).sort()).toEqual(
      [...layout.vapps.keys()]
        .map((name) => [name, name.includes(`_${uuidOf(h, 'vdc-a2')}_`) ? 'vdc-a2' : 'vdc-a'])
        .sort(),
    );
    await applyCapvcdCluster();
    const seq = h.lastSeq();
    await h.startProvider();
    const c = await h.clusterRunning(
      'the CAPVCD DC-group cluster adopted, its Machines Running',
      'd1',
      MACHINES.length,
    );
    expectUntouched(h, before, seq, [layout.vms.get('d1-cp-0')?.ip as string]);
    expect(c.status?.loadBalancer?.vip).toBe(layout.vip);
    expect(c.spec.controlPlaneEndpoint?.host).toBe(layout.vip);
    for (const m of MACHINES) {
      const vcdMachine = await h.client.get(VCDMachineType, { namespace: ns, name: m.name });
      expect(vcdMachine.spec.providerID).toBe(providerIdFor(layout.vms.get(m.name)?.urn as string));
      expect(vcdMachine.status?.failureDomain).toBe(m.zone);
      expect(vcdMachine.status?.addresses?.find((a) => a.type === 'InternalIP')?.address).toBe(
        layout.vms.get(m.name)?.ip,
      );
    }
  }, 600_000);

  it('a machine of a new MachineDeployment gets its vApp where and as CAPVCD would name it', async () => {
    const name = 'd1-md-1-c3';
    const objects = h
      .machineObjects('d1', name, { controlPlane: false, failureDomain: 'zone-2' })
      .map((o) => {
        const metadata = o.metadata as { labels?: Record<string, string> };
        const labels = { ...metadata.labels, 'cluster.x-k8s.io/deployment-name': 'd1-md-1' };
        return { ...o, metadata: { ...metadata, labels } };
      });
    await h.plane.createObjects(objects);
    await h.clusterRunning('the new Machine Running', 'd1', MACHINES.length + 1);
    const vm = h.sim.inspect.vm(name);
    const vapp = h.sim.inspect.world.vapps.get(vm?.vappId ?? '');
    expect(vapp?.name).toBe(`d1_${uuidOf(h, 'vdc-a2')}_d1-md-1`);
    expect(h.sim.inspect.world.vdcs.get(vapp?.vdcId ?? '')?.name).toBe('vdc-a2');
    expect(h.vcdNames().vapps).toHaveLength(layout.vapps.size + 1);
  }, 300_000);

  it('deleting the taken-over Cluster removes CAPVCD’s VMs, its vApp in each zone and the load balancer', async () => {
    await h.deleteCluster('d1');
    expect(h.vcdNames()).toEqual({ vms: [], vapps: [], pools: [], virtualServices: [] });
  }, 300_000);
});

/** The UUID of a VDC in vcdsim, as its URN ends. */
function uuidOf(harness: Harness, vdc: string): string {
  return [...harness.sim.inspect.world.vdcs.values()].find((v) => v.name === vdc)?.id as string;
}
