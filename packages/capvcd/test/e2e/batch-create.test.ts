/**
 * VM creation in batches, under real Cluster API against vcdsim: the workers of a MachineDeployment
 * that wait for the cluster's vApp join it together, in fewer recomposes than machines, every VM
 * its own (its name, its marker, its providerID); a batch of several VCD refuses (503) reaches each
 * machine in it as a condition, a failed clone task its machine's, and all come right after; a
 * provider killed with a batch in flight leaves nothing made twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Machine, MachineType, providerIdFor, VCDMachineType } from '../../src/index.js';
import { vmMarker } from '../../src/naming.js';
import { MachineDeploymentType } from './capi.js';
import { conditionText } from './condition-history.js';
import { Harness } from './harness.js';

const ns = 'e2e-batch';
let h: Harness;

beforeAll(async () => {
  // A clone that outlasts several waiting machines' rechecks, so a batch forms behind it.
  h = await Harness.start({ namespace: ns, operationLatencyMs: { vdcRecomposeVapp: 1500 } });
  await h.prepareCluster('b1');
  await h.startProvider();
  await h.plane.createObjects([
    ...h.clusterObjects('b1', { host: '10.10.0.7', port: 6443 }),
    ...h.controlPlaneObjects('b1', 'b1-cp-0'),
  ]);
  await h.wait(
    'the control plane Running',
    async () => {
      const m = await h.client.get(MachineType, { namespace: ns, name: 'b1-cp-0' });
      return m.status?.nodeRef ? m : undefined;
    },
    240_000,
  );
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

const running = (m: Machine) => m.status?.phase === 'Running' && m.status.nodeRef !== undefined;
const allRunning = (count: number) =>
  h.wait(
    `${count} Machines Running`,
    async () => {
      const list = (await h.client.list(MachineType, { namespace: ns })).items;
      return list.length === count && list.every(running) ? list : undefined;
    },
    300_000,
  );
const vapp = () => [...h.sim.inspect.world.vapps.values()].filter((a) => a.name === 'b1');
/** Recompose tasks on the cluster's vApp that started after request `seq`'s time. */
const recomposesSince = (since: number, status?: string) =>
  h.sim.inspect
    .tasks()
    .filter(
      (t) =>
        t.operationName === 'vdcRecomposeVapp' &&
        t.owner.path === `/api/vApp/vapp-${vapp()[0]?.id}` &&
        t.startTime >= since &&
        (status === undefined || t.status === status),
    );

/** Every VCDMachine has its own VM: its name, its marker, its providerID; nothing else, nothing twice. */
async function everyVmItsOwn(): Promise<void> {
  const vcdMachines = (await h.client.list(VCDMachineType, { namespace: ns })).items;
  const w = h.sim.inspect.world;
  const vms = vapp()[0]?.vmIds.map((id) => w.vms.get(id)!) ?? [];
  expect(vapp()).toHaveLength(1);
  expect(vms.map((v) => v.name).sort()).toEqual(vcdMachines.map((m) => m.status?.vmName).sort());
  for (const m of vcdMachines) {
    const vm = vms.find((v) => v.name === m.status?.vmName);
    expect(vm?.description).toBe(vmMarker(ns, m.metadata.name as string));
    expect(m.spec.providerID).toBe(providerIdFor(`urn:vcloud:vm:${vm?.id}`));
  }
  expect(new Set(vcdMachines.map((m) => m.spec.providerID)).size).toBe(vcdMachines.length);
}

describe('VM creation in batches', () => {
  it('8 workers join the vApp in fewer recomposes than machines, each VM its own', async () => {
    const since = Date.now();
    await h.plane.createObjects(h.workerObjects('b1', 'b1-md-0', 8));
    await allRunning(9);
    await everyVmItsOwn();
    const recomposes = recomposesSince(since);
    expect(recomposes.every((t) => t.status === 'success')).toBe(true);
    expect(recomposes.length).toBeGreaterThanOrEqual(1);
    expect(recomposes.length).toBeLessThan(8);
    expect(h.sim.inspect.unfinishedTasks()).toEqual([]);
  }, 400_000);

  it('a refused batch reaches each machine in it, a failed clone its machine; all come up once', async () => {
    const history = await h.recordConditions();
    const since = Date.now();
    await h.client.patch(MachineDeploymentType, { namespace: ns, name: 'b1-md-0' }, 'merge', {
      spec: { replicas: 14 },
    });
    // Armed once several machines wait behind a clone: the next recompose carries them all.
    await h.wait('several machines waiting for the vApp', async () =>
      history.find((o) => /next recompose \(([3-9]|\d\d+) waiting\)/.test(conditionText(o))),
    );
    h.sim.faults.httpErrors(503, 1, { method: 'POST', path: '/api/vApp/vapp-{id}/action/recomposeVApp' });
    // The retry after the 503's backoff: the first machine back sends it, often alone.
    h.sim.faults.failTask('vdcRecomposeVapp', { count: 1, message: 'Injected batch clone failure.' });
    await allRunning(15);
    await everyVmItsOwn();
    // The failed task reached every machine whose VM it carried: each said so in its own condition.
    const failed = recomposesSince(since, 'error');
    expect(failed).toHaveLength(1);
    const saidFailure = new Set<string>();
    const saidRefusal = new Set<string>();
    let refusedSize = 1; // the sender alone, unless a member's condition says how many it carried
    for (const m of (await h.client.list(VCDMachineType, { namespace: ns })).items) {
      const name = m.metadata.name as string;
      const stated = (pattern: RegExp) =>
        history.find((o) => o.metadata.name === name && pattern.test(conditionText(o)));
      if (stated(/Injected batch clone failure/)) saidFailure.add(name);
      const refused = stated(/Ready=False\/VCDError: [^;]*temporarily unavailable/);
      if (!refused) continue;
      saidRefusal.add(name);
      const size = /the recompose of (\d+) VMs that carried/.exec(conditionText(refused))?.[1];
      if (size) refusedSize = Number(size);
    }
    console.info(`refused batch: ${refusedSize} VMs; failed batch task said by ${saidFailure.size} machines`);
    // The refused recompose carried several VMs, and the 503 reached machines beyond its sender,
    // each one it carried. Not necessarily all: a member whose next reconcile comes only after the
    // next batch took it in (the sender back from its backoff) takes that batch's task and never
    // sees the refusal, which is right; under load that happened in CI.
    expect(saidFailure.size).toBeGreaterThanOrEqual(1);
    expect(refusedSize).toBeGreaterThanOrEqual(2);
    expect(saidRefusal.size).toBeGreaterThanOrEqual(2);
    expect(saidRefusal.size).toBeLessThanOrEqual(refusedSize);
    await h.wait('no VCD task left running', async () =>
      h.sim.inspect.unfinishedTasks().length === 0 ? true : undefined,
    );
  }, 400_000);

  it('the provider killed with a batch in flight: a new one carries on, nothing made twice', async () => {
    const seq = h.lastSeq();
    await h.client.patch(MachineDeploymentType, { namespace: ns, name: 'b1-md-0' }, 'merge', {
      spec: { replicas: 20 },
    });
    await h.wait('a batch of the new machines sent', async () =>
      h.sim.inspect.requests().some((r) => r.seq > seq && r.route.endsWith('/action/recomposeVApp'))
        ? true
        : undefined,
    );
    await h.provider?.stop(); // killed with the clone in flight, members not yet told
    await h.startProvider();
    await allRunning(21);
    await everyVmItsOwn();
    expect(h.sim.inspect.unfinishedTasks()).toEqual([]);
  }, 400_000);
});
