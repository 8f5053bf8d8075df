/**
 * A 3-replica KubeadmControlPlane (the real manager, external etcd) on a VCDCluster with three
 * failure domains (three VDCs of the org): KCP reads the domains capvcd publishes and gives each
 * control-plane Machine a different one, and capvcd puts each VM in its domain's VDC and network
 * (checked in vcdsim's world). Then a version bump rolls the three one at a time (maxSurge 1): the
 * pool (sampled through vcdsim) never without a healthy member nor holding a VM going down, at most
 * four VMs at once, and afterwards three new VMs, spread again, none of the old ones left.
 */
import type { Zone } from '@capstan/capvcd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Machine, MachineType, VCDMachineType } from '../../src/index.js';
import type { Harness } from './harness.js';
import { kcpClusterObjects } from './kcp-objects.js';
import { kcpSettled, poolMembers, rollVersion, startKcpHarness, workloadEtcd } from './kcp-status.js';

const ns = 'e2e-kcp-zones';
const cluster = 'kcpz';
const zones: Zone[] = [
  { name: 'zone-1', ovdc: 'vdc-a', ovdcNetworkName: 'net-a', controlPlaneZone: true },
  { name: 'zone-2', ovdc: 'vdc-a2', ovdcNetworkName: 'net-a2', controlPlaneZone: true },
  { name: 'zone-3', ovdc: 'vdc-a3', ovdcNetworkName: 'net-a3', controlPlaneZone: true },
];
let h: Harness;

beforeAll(async () => {
  h = await startKcpHarness(ns, cluster);
}, 600_000);
afterAll(() => h?.stop());

/** Each control-plane Machine's failure domain and where vcdsim has its VM (VDC, networks). */
async function placements(machines: Machine[]) {
  const w = h.sim.inspect.world;
  return Promise.all(
    machines.map(async (m) => {
      const vcdMachine = await h.client.get(VCDMachineType, {
        namespace: ns,
        name: m.spec?.infrastructureRef?.name as string,
      });
      const vm = h.sim.inspect.vm(vcdMachine.status?.vmName as string);
      const nics = [...(vm?.nics ?? [])].sort((a, b) => a.index - b.index);
      return {
        domain: m.spec?.failureDomain,
        recorded: vcdMachine.status?.failureDomain,
        vdc: w.vdcs.get(w.vapps.get(vm?.vappId ?? '')?.vdcId ?? '')?.name,
        networks: nics.map((n) => n.network),
      };
    }),
  );
}

/** Every zone once, each VM in its zone's VDC on its zone's network. */
function expectSpread(placed: Awaited<ReturnType<typeof placements>>) {
  expect(placed.map((p) => p.domain).sort()).toEqual(zones.map((z) => z.name));
  for (const p of placed) {
    const zone = zones.find((z) => z.name === p.domain);
    expect(p).toEqual({
      domain: zone?.name,
      recorded: zone?.name,
      vdc: zone?.ovdc,
      networks: [zone?.ovdcNetworkName],
    });
  }
}

const machines = async () => (await h.client.list(MachineType, { namespace: ns })).items;

describe('KubeadmControlPlane of 3 over three failure domains', () => {
  it('gives each control-plane Machine its own failure domain; each VM is placed by it', {
    timeout: 600_000,
  }, async () => {
    const etcd = await workloadEtcd(h);
    await h.plane.createObjects(
      kcpClusterObjects({ namespace: ns, url: h.sim.url }, cluster, etcd, { replicas: 3, zones }),
    );
    await kcpSettled(h, ns, cluster, 3, 500_000);
    await h.wait('3 pool members', async () => (poolMembers(h, ns, cluster).length === 3 ? true : undefined));
    expectSpread(await placements(await machines()));
  });

  it('a version bump rolls the 3 one at a time: the pool always has a healthy member and never a VM going down; at most 4 VMs; no VM leaked', {
    timeout: 600_000,
  }, async () => {
    const { machines: rolled, seen } = await rollVersion(h, ns, cluster, 'v1.35.1', 3, 500_000);
    expect(seen.samples).toBeGreaterThan(50);
    expect(seen.withoutHealthyMember).toBe(0);
    expect(seen.membersDown).toEqual([]);
    expect(seen.mostVms).toBe(4); // maxSurge 1: one VM beyond the three at a time
    expectSpread(await placements(rolled));
    // Each new machine's guest joined with the version KCP uploaded for the upgrade.
    for (const m of rolled)
      expect(h.guest?.nodes.find((n) => n.name === m.status?.nodeRef?.name)).toMatchObject({
        step: 'join-control-plane',
        version: 'v1.35.1',
      });
  });
});
