/**
 * Takeover of a cluster CAPVCD made (#41 item 6), under real Cluster API on vcdsim: VCD holds the
 * vApp, a control-plane and a worker VM and the load balancer as CAPVCD lays them out (see capvcd-layout.ts); the
 * cluster's objects are applied as a CAPVCD user has them (spec.providerID set, CAPVCD's statuses:
 * `infraId`, `ready`, addresses) with the opt-in annotation, and capvcd is started in CAPVCD's
 * place. It adopts everything: no VCD write at all (so no VM made or deleted), the same VIP and
 * VM, the Machine Running; deleting the cluster then removes what CAPVCD made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADOPT_CAPVCD_ANNOTATION, providerIdFor, VCDClusterType, VCDMachineType } from '../../src/index.js';
import { type CapvcdLayout, expectUntouched, layOutAsCapvcd } from './capvcd-layout.js';
import { Harness } from './harness.js';

const ns = 'e2e-takeover';
const infraId = 'NO_RDE_5f0c9a52-3b7e-4d1a-9c61-2f3e8a7b4c10';
let h: Harness;
let layout: CapvcdLayout;
/** The VCDMachine of Machine t1-cp-0, whose VM CAPVCD named t1-cp-0. */
const VCD_MACHINE = 't1-cp-0-x7k2p';

beforeAll(async () => {
  h = await Harness.start({ namespace: ns, taskLatencyMs: 100 });
  await h.prepareCluster('t1');
  layout = await layOutAsCapvcd({ url: h.sim.url, caPem: h.sim.caPem }, 't1', infraId, {
    controlPlane: ['t1-cp-0'],
    workers: ['t1-md-0'],
  });
}, 900_000);
afterAll(async () => {
  await h?.stop();
});

/** The cluster's objects as a CAPVCD user has them, plus the opt-in annotation. */
async function applyCapvcdCluster(): Promise<void> {
  const vm = layout.vms.get('t1-cp-0') as { urn: string; ip: string };
  const worker = layout.vms.get('t1-md-0') as { urn: string; ip: string };
  // An older Cluster API named the infrastructure machine apart from its Machine; CAPVCD named
  // the VM after the Machine, so the VCDMachine here has another name than its VM.
  const objects = [
    ...h.clusterWith('t1', { vip: layout.vip }),
    ...h.controlPlaneObjects('t1', 't1-cp-0', { providerID: providerIdFor(vm.urn) }),
    ...h.machineObjects('t1', 't1-md-0', {
      controlPlane: false,
      vcdMachine: { providerID: providerIdFor(worker.urn) },
    }),
  ].map((o) => {
    const metadata = o.metadata as Record<string, unknown>;
    if (o.kind === 'VCDCluster')
      return { ...o, metadata: { ...metadata, annotations: { [ADOPT_CAPVCD_ANNOTATION]: infraId } } };
    if (o.kind === 'VCDMachine' && metadata.name === 't1-cp-0')
      return { ...o, metadata: { ...metadata, name: VCD_MACHINE } };
    if (o.kind === 'Machine' && metadata.name === 't1-cp-0') {
      const spec = o.spec as Record<string, Record<string, unknown>>;
      return { ...o, spec: { ...spec, infrastructureRef: { ...spec.infrastructureRef, name: VCD_MACHINE } } };
    }
    return o;
  });
  await h.plane.createObjects(objects);
  // The statuses CAPVCD wrote (kept by a provider swap in place): infra ID, ready, addresses.
  await h.client.patchStatus(VCDClusterType, { namespace: ns, name: 't1' }, 'merge', {
    status: { ready: true, infraId, rdeVersionInUse: 'NO_RDE_', vappMetadataUpdated: true },
  });
  for (const [name, vmName, ip] of [
    [VCD_MACHINE, 't1-cp-0', vm.ip],
    ['t1-md-0', 't1-md-0', worker.ip],
  ] as const)
    await h.client.patchStatus(VCDMachineType, { namespace: ns, name }, 'merge', {
      status: {
        ready: true,
        bootstrapped: true,
        addresses: [
          { type: 'InternalIP', address: ip },
          { type: 'Hostname', address: vmName },
        ],
      },
    });
}

describe('takeover of a CAPVCD cluster', () => {
  it('adopts vApp, VMs and load balancer with no VCD write, the same VIP, the Machines Running', async () => {
    const before = h.vcdObjects();
    expect(before.virtualServices.map((v) => v.name)).toEqual([`t1-${infraId}-tcp`]);
    await applyCapvcdCluster();
    const seq = h.lastSeq();
    await h.startProvider();
    const machine = {
      c: await h.clusterRunning('the CAPVCD cluster adopted, its Machines Running', 't1', 2),
      vm: await h.client.get(VCDMachineType, { namespace: ns, name: VCD_MACHINE }),
    };
    expectUntouched(h, before, seq, [layout.vms.get('t1-cp-0')?.ip as string]);
    // CAPVCD's infra ID on the vApp is read once for the session, however many looks were taken.
    const infraIdReads = h.sim.inspect
      .requests()
      .filter((r) => r.seq > seq && r.method === 'GET' && r.route.endsWith('/metadata/{key}'));
    expect(infraIdReads).toHaveLength(1);
    expect(machine.c.status?.loadBalancer?.vip).toBe(layout.vip);
    expect(machine.c.spec.controlPlaneEndpoint?.host).toBe(layout.vip);
    expect(machine.vm.spec.providerID).toBe(providerIdFor(layout.vms.get('t1-cp-0')?.urn as string));
    expect(machine.vm.status?.vmName).toBe('t1-cp-0');
    const worker = await h.client.get(VCDMachineType, { namespace: ns, name: 't1-md-0' });
    expect(worker.spec.providerID).toBe(providerIdFor(layout.vms.get('t1-md-0')?.urn as string));
    expect(machine.vm.status?.addresses?.find((a) => a.type === 'InternalIP')?.address).toBe(
      layout.vms.get('t1-cp-0')?.ip,
    );
  }, 600_000);

  it('deleting the taken-over Cluster removes CAPVCD’s VM, vApp and load balancer', async () => {
    await h.deleteCluster('t1');
    expect(h.vcdNames()).toEqual({ vms: [], vapps: [], pools: [], virtualServices: [] });
  }, 300_000);
});
