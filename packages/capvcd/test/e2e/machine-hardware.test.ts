/**
 * A VCDMachine's own hardware and graceful power-off under real Cluster API with vcdsim: workers
 * of a MachineDeployment whose VCDMachineTemplate sets numCPUs, coresPerSocket, memoryMiB and two
 * data disks get VMs of that size with those disks (set in the VmSpecSection before power-on), and
 * the template publishes that capacity. Scaled to zero with powerOffMode trySoft, one guest shuts
 * down when asked (no hard power-off reaches its VM) and a hung one is powered off once the
 * timeout has passed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Machine, MachineType, VCDMachineTemplateType, VCDMachineType } from '../../src/index.js';
import { MachineDeploymentType } from './capi.js';
import { Harness } from './harness.js';

const ns = 'e2e-hardware';
const TIMEOUT_S = 4;
let h: Harness;

beforeAll(async () => {
  h = await Harness.start({ namespace: ns });
  await h.prepareCluster('hw1');
  await h.startProvider();
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

const running = (m: Machine) => m.status?.phase === 'Running' && m.status.nodeRef !== undefined;

/** The VM's calls to VCD (writes) by route, in order, with when they were answered. */
function vmWrites(vmId: string): { route: string; at: number }[] {
  return h.sim.inspect
    .requests()
    .filter((r) => r.method === 'POST' && r.path.includes(`vm-${vmId}`))
    .map((r) => ({ route: r.route.replace('/api/vApp/vm-{id}/', ''), at: r.at }));
}

describe('a machine’s own CPU, memory and data disks, and its graceful power-off', () => {
  it('refuses CPUs that are not a multiple of the cores per socket, and memory not a multiple of 4', async () => {
    const bad = (spec: Record<string, unknown>, name: string) =>
      h.client.create(VCDMachineType, {
        metadata: { name, namespace: ns },
        spec: { catalog: 'templates', template: 'ubuntu', ...spec },
      });
    await expect(bad({ numCPUs: 5, coresPerSocket: 2 }, 'bad-cores')).rejects.toThrow(/multiple of it/);
    await expect(bad({ coresPerSocket: 2 }, 'cores-alone')).rejects.toThrow(/coresPerSocket needs numCPUs/);
    await expect(bad({ memoryMiB: 4097 }, 'bad-memory')).rejects.toThrow(/multiple of 4/);
  }, 60_000);

  it('makes the VMs with them, and shuts their guests down on delete (a hung one forced after the timeout)', async () => {
    const history = await h.recordConditions();
    await h.plane.createObjects([
      ...h.clusterObjects('hw1', { host: '10.10.0.21', port: 6443 }),
      ...h.controlPlaneObjects('hw1', 'hw1-cp-0'),
      ...h.workerObjects('hw1', 'hw1-md-0', 2, {
        vcdMachine: {
          numCPUs: 4,
          coresPerSocket: 2,
          memoryMiB: 6144,
          dataDisks: [
            { name: 'etcd', size: '10Gi' },
            { name: 'containerd', size: '20Gi', busType: 'nvme', storageProfile: 'slow' },
          ],
          powerOffMode: 'trySoft',
          guestSoftPowerOffTimeoutSeconds: TIMEOUT_S,
        },
      }),
    ]);
    const workers = await h.wait('both workers Running', async () => {
      const list = (await h.client.list(MachineType, { namespace: ns })).items.filter(
        (m) => m.metadata.name !== 'hw1-cp-0' && running(m),
      );
      return list.length === 2 ? list : undefined;
    });
    const vmNames = await Promise.all(
      workers.map(async (m) => {
        const name = m.spec?.infrastructureRef?.name as string;
        return (await h.client.get(VCDMachineType, { namespace: ns, name })).status?.vmName as string;
      }),
    );
    const slow = [...h.sim.inspect.world.storageProfiles.values()].find((p) => p.name === 'slow');
    for (const name of vmNames) {
      const vm = h.sim.inspect.vm(name);
      expect(vm, name).toBeDefined();
      expect({ cpus: vm?.cpuCount, cores: vm?.coresPerSocket, memory: vm?.memoryMb }).toEqual({
        cpus: 4,
        cores: 2,
        memory: 6144,
      });
      const disks = vm?.disks.map((d) => ({
        sizeMb: d.sizeMb,
        adapter: d.adapterType,
        bus: d.busNumber,
        unit: d.unitNumber,
      }));
      expect(disks?.slice(1)).toEqual([
        { sizeMb: 10240, adapter: 'VirtualSCSI', bus: 1, unit: 0 },
        { sizeMb: 20480, adapter: 'vmware.nvme.controller', bus: 1, unit: 0 },
      ]);
      expect(vm?.disks[2]?.storageProfileId).toBe(slow?.id);
    }
    // The control plane asks for nothing of its own: its VM keeps the template's size, one disk.
    const cpVm = h.sim.inspect.vm(
      (await h.client.get(VCDMachineType, { namespace: ns, name: 'hw1-cp-0' })).status?.vmName as string,
    );
    expect(cpVm?.disks).toHaveLength(1);
    const capacity = await h.wait('the template’s capacity', async () => {
      const t = await h.client.get(VCDMachineTemplateType, { namespace: ns, name: 'hw1-md-0' });
      return t.status?.capacity;
    });
    expect(capacity).toEqual({ cpu: '4', memory: '6144Mi' });

    // One guest hangs: asked to shut down, it never powers off.
    const [politeName, hungName] = vmNames as [string, string];
    const polite = h.sim.inspect.vm(politeName);
    const hung = h.sim.inspect.vm(hungName);
    if (!polite || !hung) throw new Error('worker VMs missing in vcdsim');
    hung.guestIgnoresShutdown = true;
    await h.client.patch(MachineDeploymentType, { namespace: ns, name: 'hw1-md-0' }, 'merge', {
      spec: { replicas: 0 },
    });
    await h.wait(
      'both worker VMs and their VCDMachines gone',
      async () => {
        const left = (await h.client.list(VCDMachineType, { namespace: ns })).items;
        return left.length === 1 && !h.sim.inspect.vm(politeName) && !h.sim.inspect.vm(hungName)
          ? true
          : undefined;
      },
      180_000,
    );

    const politeCalls = vmWrites(polite.id).map((c) => c.route);
    expect(politeCalls.slice(-2)).toEqual(['power/action/shutdown', 'action/undeploy']);
    expect(politeCalls).not.toContain('power/action/powerOff');

    const hungCalls = vmWrites(hung.id);
    const asked = hungCalls.find((c) => c.route === 'power/action/shutdown');
    const forced = hungCalls.find((c) => c.route === 'power/action/powerOff');
    expect(asked).toBeDefined();
    expect(forced).toBeDefined();
    expect((forced?.at ?? 0) - (asked?.at ?? 0)).toBeGreaterThanOrEqual(TIMEOUT_S * 1000 - 100);
    // While it waited, its VCDMachine said why.
    const said = history.find((m) =>
      (m.status?.conditions ?? []).some(
        (c) => c.type === 'VMProvisioned' && c.reason === 'GuestShuttingDown',
      ),
    );
    expect(said).toBeDefined();
  }, 400_000);
});
