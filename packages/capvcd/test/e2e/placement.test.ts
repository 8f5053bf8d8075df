/**
 * Where and how a machine's VM is made, under real Cluster API, checked in vcdsim's world: a
 * VCDCluster with two failure domains (two VDCs of the org) lists them on the Cluster, and a
 * Machine's failure domain puts its VM in that VDC on that network; a VCDMachineTemplate's sizing
 * policy, placement policy, storage profile, disk size and extra networks are the VM's, NICs in
 * order (an extra network joins the cluster's vApp), the primary NIC's IP in status.addresses; an unknown sizing policy or failure domain is
 * said in a condition, makes no VM, and the machine can still be deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterType, type Machine, MachineType, VCDMachineType } from '../../src/index.js';
import { Harness } from './harness.js';
import { type MachineExtras, POOL_LABEL } from './objects.js';

const ns = 'e2e-placement';
let h: Harness;

const zones = [
  { name: 'zone-1', ovdc: 'vdc-a', ovdcNetworkName: 'net-a', controlPlaneZone: true },
  { name: 'zone-2', ovdc: 'vdc-a2', ovdcNetworkName: 'net-a2' },
];

beforeAll(async () => {
  h = await Harness.start({ namespace: ns });
  await h.prepareCluster('p1');
  await h.startProvider();
  await h.plane.createObjects([
    ...h.clusterObjects('p1', { host: '10.10.0.8', port: 6443 }, zones),
    ...h.machineObjects('p1', 'p1-cp-0', { failureDomain: 'zone-1' }),
  ]);
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

const running = (m: Machine) => m.status?.phase === 'Running' && m.status.nodeRef !== undefined;
/** The Running Machines of one MachineDeployment (`count` of them). */
const poolRunning = (pool: string, count: number) =>
  h.wait(`${count} Machine(s) of ${pool} Running`, async () => {
    const list = (await h.client.list(MachineType, { namespace: ns })).items.filter(
      (m) => m.metadata.labels?.[POOL_LABEL] === pool,
    );
    return list.length === count && list.every(running) ? list : undefined;
  });
/** A Machine's VM in vcdsim, with the names of its VDC and its NICs' networks. */
async function vmOf(machine: Machine) {
  const vcdMachine = await h.client.get(VCDMachineType, {
    namespace: ns,
    name: machine.spec?.infrastructureRef?.name as string,
  });
  const w = h.sim.inspect.world;
  const vm = h.sim.inspect.vm(vcdMachine.status?.vmName as string);
  if (!vm) throw new Error(`no VM for ${machine.metadata.name}`);
  const vapp = w.vapps.get(vm.vappId);
  const nics = [...vm.nics].sort((a, b) => a.index - b.index);
  return { vcdMachine, vm, vdc: w.vdcs.get(vapp?.vdcId ?? '')?.name, nics };
}

describe('placement of a machine’s VM', () => {
  it('lists the VCDCluster’s zones as the Cluster’s failure domains', async () => {
    const failureDomains = await h.wait('the Cluster’s failure domains', async () => {
      const cluster = await h.client.get(ClusterType, { namespace: ns, name: 'p1' });
      const listed = (cluster.status as { failureDomains?: unknown[] } | undefined)?.failureDomains;
      return listed?.length ? listed : undefined;
    });
    expect(failureDomains).toEqual([
      { name: 'zone-1', controlPlane: true, attributes: { ovdc: 'vdc-a', ovdcNetwork: 'net-a' } },
      { name: 'zone-2', controlPlane: false, attributes: { ovdc: 'vdc-a2', ovdcNetwork: 'net-a2' } },
    ]);
  }, 180_000);

  it('puts each Machine’s VM in the VDC and on the network of its failure domain', async () => {
    await h.plane.createObjects(h.workerObjects('p1', 'p1-md-z2', 1, { failureDomain: 'zone-2' }));
    const cp = await h.wait('p1-cp-0 Running', async () => {
      const m = await h.client.get(MachineType, { namespace: ns, name: 'p1-cp-0' });
      return running(m) ? m : undefined;
    });
    const [worker] = await poolRunning('p1-md-z2', 1);
    expect(worker?.spec?.failureDomain).toBe('zone-2'); // CAPI copied it from the MachineDeployment
    for (const [machine, zone, vdc, network, subnet] of [
      [cp, 'zone-1', 'vdc-a', 'net-a', '10.10.0.'],
      [worker as Machine, 'zone-2', 'vdc-a2', 'net-a2', '10.40.0.'],
    ] as const) {
      const placed = await vmOf(machine);
      expect(placed.vdc, machine.metadata.name).toBe(vdc);
      expect(placed.nics.map((n) => n.network)).toEqual([network]);
      expect(placed.nics[0]?.ipAddress?.startsWith(subnet)).toBe(true);
      expect(placed.vcdMachine.status?.failureDomain).toBe(zone);
    }
  }, 300_000);

  it('gives the VM its template’s sizing, placement, storage profile, disk size and extra networks', async () => {
    await h.plane.createObjects(
      h.workerObjects('p1', 'p1-md-big', 1, {
        vcdMachine: {
          sizingPolicy: 'large',
          placementPolicy: 'zone-a',
          storageProfile: 'slow',
          diskSize: '40Gi',
          extraOvdcNetworks: ['net-a-storage'],
        },
      }),
    );
    const [machine] = await poolRunning('p1-md-big', 1);
    const { vcdMachine, vm, vdc, nics } = await vmOf(machine as Machine);
    const w = h.sim.inspect.world;
    expect(vdc).toBe('vdc-a'); // no failure domain: the VCDCluster's own VDC
    expect(w.computePolicies.get(vm.sizingPolicyId ?? '')?.name).toBe('large');
    expect([vm.cpuCount, vm.coresPerSocket, vm.memoryMb]).toEqual([4, 2, 16384]);
    expect(w.computePolicies.get(vm.placementPolicyId ?? '')?.name).toBe('zone-a');
    expect(w.storageProfiles.get(vm.storageProfileId)?.name).toBe('slow');
    expect(vm.disks[0]?.sizeMb).toBe(40 * 1024);
    expect(nics.map((n) => n.network)).toEqual(['net-a', 'net-a-storage']);
    // The control plane made the vApp with net-a alone; this machine's recompose bridged the other
    // (VCD lets a NIC use only a network of its vApp).
    const vapp = w.vapps.get(vm.vappId);
    const storageNet = [...w.networks.values()].find((n) => n.name === 'net-a-storage');
    expect(vapp?.networks.map((n) => [n.name, n.parentNetworkId])).toEqual([
      ['net-a', [...w.networks.values()].find((n) => n.name === 'net-a')?.id],
      ['net-a-storage', storageNet?.id],
    ]);
    expect(vm.primaryNicIndex).toBe(0);
    const [primary, storage] = nics;
    expect(primary?.ipAddress?.startsWith('10.10.0.')).toBe(true);
    expect(storage?.ipAddress?.startsWith('10.30.0.')).toBe(true);
    const internal = vcdMachine.status?.addresses?.filter((a) => a.type === 'InternalIP');
    // Every NIC's address, the primary's first (the guest boots them together in vcdsim).
    expect(internal).toEqual([
      { type: 'InternalIP', address: primary?.ipAddress },
      { type: 'InternalIP', address: storage?.ipAddress },
    ]);
  }, 300_000);

  it.each<[string, string, MachineExtras, RegExp, string]>([
    [
      'an unknown sizing policy',
      'p1-bad-size',
      { vcdMachine: { sizingPolicy: 'no-such-size' } },
      /no-such-size/,
      'UnknownReference',
    ],
    [
      'a failure domain the VCDCluster lacks',
      'p1-bad-zone',
      { failureDomain: 'zone-9' },
      /zone-9 is not a zone/,
      'InvalidFailureDomain',
    ],
  ])(
    '%s: a condition says so, no VM is made, the machine can still be deleted',
    async (_, name, extras, says, reason) => {
      await h.plane.createObjects(h.machineObjects('p1', name, { controlPlane: false, ...extras }));
      const ready = await h.wait(`${name}: Ready=False naming the problem`, async () => {
        const m = await h.client.get(VCDMachineType, { namespace: ns, name });
        const c = m.status?.conditions?.find((x) => x.type === 'Ready');
        return c?.status === 'False' && says.test(c.message ?? '') ? c : undefined;
      });
      expect(ready.message).toMatch(says);
      expect(ready.reason).toBe(reason);
      expect(h.sim.inspect.vm(name)).toBeUndefined();
      await h.client.delete(MachineType, { namespace: ns, name });
      await h.wait(`${name}'s VCDMachine gone`, async () => {
        const list = (await h.client.list(VCDMachineType, { namespace: ns })).items;
        return list.some((m) => m.metadata.name === name) ? undefined : true;
      });
      expect(h.sim.inspect.vm(name)).toBeUndefined();
      expect(h.failures).toEqual([]);
    },
    180_000,
  );
});
