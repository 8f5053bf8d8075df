/**
 * A VM's own hardware and guest shutdown as VCD serves them: VmSpecSection sizing, data disks added
 * on the controller slot a DiskSettings names (refused on a taken slot, SCSI unit 7 or a second
 * SCSI type on one bus), and `power/action/shutdown`: the guest powers the VM off (still deployed),
 * a hung guest leaves it on, a guest without VMware Tools cannot be asked (the task fails).
 */
import type { ManualClock } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VcdSim } from '../src/index.js';
import { parseXml, startVirtual, Tenant } from './client.js';
import { NS } from './fixtures.js';
import { addVms, boot, composeVApp, lookups, MT, run } from './flows.js';

const spec = (name: string, inner: string) =>
  `<Vm ${NS} name="${name}"><VmSpecSection Modified="true"><ovf:Info>spec</ovf:Info>${inner}</VmSpecSection></Vm>`;
const newDisk = (sizeMb: number, adapter: string, bus: number, unit: number) =>
  `<DiskSettings><SizeMb>${sizeMb}</SizeMb><UnitNumber>${unit}</UnitNumber><BusNumber>${bus}</BusNumber>` +
  `<AdapterType>${adapter}</AdapterType><ThinProvisioned>true</ThinProvisioned></DiskSettings>`;

describe('a VM’s own sizing, data disks and guest shutdown', () => {
  let sim: VcdSim<ManualClock>;
  let alice: Tenant;
  let vms: Record<string, string>;

  beforeAll(async () => {
    sim = await startVirtual();
    alice = await Tenant.login(sim);
    const l = await lookups(alice);
    vms = await addVms(sim, alice, l, await composeVApp(sim, alice, l, 'hw-1'), [
      { name: 'hw-0', diskMb: 20480 },
      { name: 'hw-1', diskMb: 20480 },
      { name: 'hw-2', diskMb: 20480 },
    ]);
  });
  afterAll(() => sim.stop());

  const reconfigure = (path: string, body: string) =>
    alice.xml('POST', `${path}/action/reconfigureVm`, body, MT('vm'));
  const vmSpec = async (path: string) => parseXml((await alice.xml('GET', path)).text).Vm.VmSpecSection;

  it('sets CPU, cores and memory, and adds disks on the slots named', async () => {
    const path = vms['hw-0'] as string;
    const body = spec(
      'hw-0',
      '<NumCpus>4</NumCpus><NumCoresPerSocket>2</NumCoresPerSocket><MemoryResourceMb><Configured>6144</Configured></MemoryResourceMb>' +
        `<DiskSection><DiskSettings><DiskId>2000</DiskId><SizeMb>20480</SizeMb></DiskSettings>${newDisk(10240, '5', 1, 0)}${newDisk(4096, '7', 1, 0)}</DiskSection>`,
    );
    const res = await reconfigure(path, body);
    expect(res.status, res.text).toBe(202);
    sim.clock.advance(1000);
    const s = await vmSpec(path);
    expect([s.NumCpus, s.NumCoresPerSocket, s.MemoryResourceMb.Configured].map(String)).toEqual([
      '4',
      '2',
      '6144',
    ]);
    const disks = [s.DiskSection.DiskSettings].flat().map((d: Record<string, unknown>) => ({
      size: String(d.SizeMb),
      adapter: String(d.AdapterType),
      bus: String(d.BusNumber),
      unit: String(d.UnitNumber),
    }));
    expect(disks).toEqual([
      { size: '20480', adapter: '3', bus: '0', unit: '0' },
      { size: '10240', adapter: '5', bus: '1', unit: '0' },
      { size: '4096', adapter: '7', bus: '1', unit: '0' },
    ]);
    // The virtual hardware lists a controller per type and bus, each disk under its own.
    const hw = parseXml(
      (await alice.xml('GET', `${path}/virtualHardwareSection`)).text,
    ).VirtualHardwareSection;
    const items: Record<string, unknown>[] = [hw.Item].flat();
    const controllers = new Map(
      items
        .filter((it) => ['5', '6', '20'].includes(String(it.ResourceType)))
        .map((it) => [String(it.InstanceID), `${it.ResourceSubType}/${it.Address}`]),
    );
    const parents = items
      .filter((it) => String(it.ResourceType) === '17')
      .map((it) => controllers.get(String(it.Parent)));
    expect(parents).toEqual(['lsilogic/0', 'VirtualSCSI/1', 'vmware.nvme.controller/1']);
  });

  it('refuses a taken slot, SCSI unit 7, a second SCSI type on a bus, memory off 4 MB steps', async () => {
    const path = vms['hw-0'] as string;
    const odd = await reconfigure(
      path,
      spec('hw-0', '<MemoryResourceMb><Configured>4097</Configured></MemoryResourceMb>'),
    );
    expect(odd.status).toBe(400);
    for (const disk of [newDisk(1024, '5', 1, 0), newDisk(1024, '5', 1, 7), newDisk(1024, '4', 1, 1)]) {
      const res = await reconfigure(path, spec('hw-0', `<DiskSection>${disk}</DiskSection>`));
      expect(res.status, disk).toBe(400);
    }
  });

  it('removes an internal disk the DiskSection leaves out; the others keep their DiskIds', async () => {
    const path = vms['hw-0'] as string;
    const ids = async () =>
      [(await vmSpec(path)).DiskSection.DiskSettings]
        .flat()
        .map((d: Record<string, unknown>) => String(d.DiskId));
    expect(await ids()).toEqual(['2000', '2001', '2002']);
    const keep = (id: number, size: number) =>
      `<DiskSettings><DiskId>${id}</DiskId><SizeMb>${size}</SizeMb></DiskSettings>`;
    const res = await reconfigure(
      path,
      spec('hw-0', `<DiskSection>${keep(2000, 20480)}${keep(2002, 4096)}</DiskSection>`),
    );
    expect(res.status, res.text).toBe(202);
    sim.clock.advance(1000);
    expect(await ids()).toEqual(['2000', '2002']);
    // A new disk takes the next id, never a removed one's; a VM keeps at least one disk.
    await reconfigure(
      path,
      spec(
        'hw-0',
        `<DiskSection>${keep(2000, 20480)}${keep(2002, 4096)}${newDisk(1024, '6', 1, 0)}</DiskSection>`,
      ),
    );
    sim.clock.advance(1000);
    expect(await ids()).toEqual(['2000', '2002', '2003']);
    expect((await reconfigure(path, spec('hw-0', '<DiskSection></DiskSection>'))).status).toBe(400);
  });

  it('shuts the guest down: off and still deployed; a hung guest stays on; no tools, no shutdown', async () => {
    const polite = vms['hw-1'] as string;
    await boot(sim, alice, polite);
    expect(await run(sim, alice, 'POST', `${polite}/power/action/shutdown`)).toBe('success');
    let vm = parseXml((await alice.xml('GET', polite)).text).Vm;
    expect([vm['@status'], vm['@deployed']]).toEqual(['8', 'true']);
    const off = await alice.xml('POST', `${polite}/power/action/shutdown`);
    expect(off.status).toBe(400);

    const hung = vms['hw-2'] as string;
    await boot(sim, alice, hung);
    const model = sim.inspect.vm('hw-2');
    if (!model) throw new Error('hw-2 missing');
    model.guestIgnoresShutdown = true;
    expect(await run(sim, alice, 'POST', `${hung}/power/action/shutdown`)).toBe('success');
    vm = parseXml((await alice.xml('GET', hung)).text).Vm;
    expect(vm['@status']).toBe('4');
    // The SDK's VM.Shutdown (undeploy by guest shutdown) fails on it; a power-off still works.
    const undeployBody = `<UndeployVAppParams xmlns="http://www.vmware.com/vcloud/v1.5"><UndeployPowerAction>shutdown</UndeployPowerAction></UndeployVAppParams>`;
    expect(
      await run(sim, alice, 'POST', `${hung}/action/undeploy`, undeployBody, MT('undeployVAppParams')),
    ).toBe('error');
    expect(await run(sim, alice, 'POST', `${hung}/power/action/powerOff`)).toBe('success');

    await boot(sim, alice, hung);
    model.toolsRunning = false;
    expect(await run(sim, alice, 'POST', `${hung}/power/action/shutdown`)).toBe('error');
  });
});
