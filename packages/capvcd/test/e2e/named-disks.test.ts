/**
 * The named-disk delete guard under real Cluster API: a worker's VM carries a named disk (as the
 * VCD CSI driver attaches a volume); scaled away, its VCDMachine says NamedDisksAttached and its
 * VM stays, untouched, until the disk is detached; then the VM goes and the disk stays in VCD.
 */
import type { Condition } from '@capstan/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Machine, MachineType, VCDMachineType } from '../../src/index.js';
import { MachineDeploymentType } from './capi.js';
import { Harness } from './harness.js';
import { attachNamedDisk, detachNamedDisk } from './vcd-tenant.js';

const ns = 'e2e-named-disks';
let h: Harness;

beforeAll(async () => {
  h = await Harness.start({ namespace: ns });
  await h.prepareCluster('n1');
  await h.startProvider();
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

const running = (m: Machine) => m.status?.phase === 'Running' && m.status.nodeRef !== undefined;
const reasonOf = (m: { status?: { conditions?: Condition[] } }, type: string) =>
  m.status?.conditions?.find((c) => c.type === type)?.reason;

describe('named disks attached to a deleted machine’s VM', () => {
  it('keep the VM until detached (NamedDisksAttached), then it goes and the disk stays', async () => {
    await h.plane.createObjects([
      ...h.clusterObjects('n1', { host: '10.10.0.11', port: 6443 }),
      ...h.controlPlaneObjects('n1', 'n1-cp-0'),
      ...h.workerObjects('n1', 'n1-md-0', 1),
    ]);
    const worker = await h.wait('the worker Running', async () => {
      const list = (await h.client.list(MachineType, { namespace: ns })).items;
      return list.find((m) => m.metadata.name !== 'n1-cp-0' && running(m));
    });
    const vcdName = worker.spec?.infrastructureRef?.name as string;
    const vmName = (await h.client.get(VCDMachineType, { namespace: ns, name: vcdName })).status
      ?.vmName as string;
    const disk = await attachNamedDisk(h, 'vdc-a', vmName, 'pvc-data');

    const seq = h.lastSeq();
    await h.client.patch(MachineDeploymentType, { namespace: ns, name: 'n1-md-0' }, 'merge', {
      spec: { replicas: 0 },
    });
    const guarded = await h.wait('NamedDisksAttached said', async () => {
      const m = await h.client.get(VCDMachineType, { namespace: ns, name: vcdName });
      return reasonOf(m, 'VMProvisioned') === 'NamedDisksAttached' ? m : undefined;
    });
    expect(guarded.metadata.deletionTimestamp).toBeDefined();
    expect(guarded.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False' });
    expect(guarded.status?.conditions?.find((c) => c.type === 'VMProvisioned')?.message).toContain(
      'pvc-data',
    );
    // Held: still on, and no write reached its VM (checked again after a few rechecks).
    await new Promise((r) => setTimeout(r, 3_000));
    expect(h.sim.inspect.vm(vmName)?.status).toBe(4);
    expect(h.writesSince(seq)).toEqual([]);

    await detachNamedDisk(h, vmName, disk);
    await h.wait(
      'the VM and its VCDMachine gone',
      async () => {
        const left = (await h.client.list(VCDMachineType, { namespace: ns })).items.map(
          (m) => m.metadata.name,
        );
        return !h.sim.inspect.vm(vmName) && !left.includes(vcdName) ? true : undefined;
      },
      120_000,
    );
    const kept = [...h.sim.inspect.world.disks.values()].filter((d) => d.name === 'pvc-data');
    expect(kept).toHaveLength(1);
    expect(kept[0]?.attachedVmId).toBeUndefined();
  }, 300_000);
});
