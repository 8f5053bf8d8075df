/**
 * Named (independent) disks as VCD serves them: created in a VDC, attached to a VM (which then
 * lists it in VmSpecSection with a Disk reference, and links disk:attach / disk:detach), refused
 * deletion while attached, and left detached, not deleted, when their VM goes.
 */
import type { ManualClock } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VcdSim } from '../src/index.js';
import { parseXml, pathOf, startVirtual, Tenant } from './client.js';
import { recomposeParams } from './fixtures.js';
import { addVms, composeVApp, lookups, MT } from './flows.js';

const NS = 'http://www.vmware.com/vcloud/v1.5';
const attachBody = (href: string) =>
  `<DiskAttachOrDetachParams xmlns="${NS}"><Disk href="${href}"/></DiskAttachOrDetachParams>`;

describe('named disks', () => {
  let sim: VcdSim<ManualClock>;
  let alice: Tenant;

  beforeAll(async () => {
    sim = await startVirtual();
    alice = await Tenant.login(sim);
  });
  afterAll(() => sim.stop());

  const finish = async (taskHref: string) => {
    sim.clock.advance(1000);
    return parseXml((await alice.xml('GET', pathOf(taskHref))).text).Task['@status'];
  };

  /** A vApp with one powered-off VM; the VM's path. */
  async function aVm(): Promise<string> {
    const l = await lookups(alice);
    const vms = await addVms(sim, alice, l, await composeVApp(sim, alice, l, 'disks-1'), [
      { name: 'w-0', diskMb: 20480 },
    ]);
    return vms['w-0'] as string;
  }

  it('create, attach (listed on the VM), refuse delete while attached, detach, delete', async () => {
    const vdcHref = await alice.find('orgVdc', 'name==vdc-a');
    const created = await alice.xml(
      'POST',
      `${pathOf(vdcHref)}/disk`,
      `<DiskCreateParams xmlns="${NS}"><Disk name="pvc-1" size="${2 * 1024 ** 3}"><Description>csi</Description></Disk></DiskCreateParams>`,
      MT('diskCreateParams'),
    );
    expect(created.status).toBe(201);
    const disk = parseXml(created.text).Disk;
    expect(disk['@sizeMb']).toBe('2048');
    expect(disk['@id']).toMatch(/^urn:vcloud:disk:/);
    expect(await finish(disk.Tasks.Task['@href'])).toBe('success');
    const diskPath = pathOf(disk['@href']);
    expect(parseXml((await alice.xml('GET', diskPath)).text).Disk['@name']).toBe('pvc-1');

    const vmPath = await aVm();
    const vm = parseXml((await alice.xml('GET', vmPath)).text).Vm;
    const links = (vm.Link as Array<Record<string, string>>).map((l) => l['@rel']);
    expect(links).toEqual(expect.arrayContaining(['disk:attach', 'disk:detach']));
    const attach = await alice.xml(
      'POST',
      `${vmPath}/disk/action/attach`,
      attachBody(disk['@href']),
      MT('diskAttachOrDetachParams'),
    );
    expect(attach.status).toBe(202);
    expect(await finish(parseXml(attach.text).Task['@href'])).toBe('success');
    const settings = parseXml((await alice.xml('GET', vmPath)).text).Vm.VmSpecSection.DiskSection
      .DiskSettings;
    const named = (Array.isArray(settings) ? settings : [settings]).filter((d) => d.Disk);
    expect(named.map((d) => d.Disk['@name'])).toEqual(['pvc-1']);
    const attached = parseXml((await alice.xml('GET', `${diskPath}/attachedVms`)).text).Vms;
    const refs = [attached.VmReference].flat();
    expect(refs.map((r) => pathOf(r['@href']))).toEqual([vmPath]);

    const refused = await alice.xml('DELETE', diskPath);
    expect(refused.status).toBe(400);
    const again = await alice.xml(
      'POST',
      `${vmPath}/disk/action/attach`,
      attachBody(disk['@href']),
      MT('diskAttachOrDetachParams'),
    );
    expect(again.status).toBe(400);

    const detach = await alice.xml(
      'POST',
      `${vmPath}/disk/action/detach`,
      attachBody(disk['@href']),
      MT('diskAttachOrDetachParams'),
    );
    expect(await finish(parseXml(detach.text).Task['@href'])).toBe('success');
    const deleted = await alice.xml('DELETE', diskPath);
    expect(deleted.status).toBe(202);
    expect(await finish(parseXml(deleted.text).Task['@href'])).toBe('success');
    expect((await alice.xml('GET', diskPath)).status).toBe(403);
  });

  it('a deleted VM leaves its named disk detached, not deleted', async () => {
    const vdcHref = await alice.find('orgVdc', 'name==vdc-a');
    const created = await alice.xml(
      'POST',
      `${pathOf(vdcHref)}/disk`,
      `<DiskCreateParams xmlns="${NS}"><Disk name="pvc-2" sizeMb="512"/></DiskCreateParams>`,
      MT('diskCreateParams'),
    );
    const disk = parseXml(created.text).Disk;
    await finish(disk.Tasks.Task['@href']);
    const vm = [...sim.inspect.world.vms.values()].find((v) => v.name === 'w-0');
    const vmPath = `/api/vApp/vm-${vm?.id}`;
    const attach = await alice.xml(
      'POST',
      `${vmPath}/disk/action/attach`,
      attachBody(disk['@href']),
      MT('diskAttachOrDetachParams'),
    );
    await finish(parseXml(attach.text).Task['@href']);
    const removed = await alice.xml('DELETE', vmPath);
    expect(removed.status).toBe(202);
    expect(await finish(parseXml(removed.text).Task['@href'])).toBe('success');
    const left = parseXml((await alice.xml('GET', pathOf(disk['@href']))).text).Disk;
    expect(left['@name']).toBe('pvc-2');
    const refs = parseXml((await alice.xml('GET', `${pathOf(disk['@href'])}/attachedVms`)).text).Vms;
    expect([refs?.VmReference ?? []].flat()).toEqual([]);
  });

  it("another org's storage profile: a named disk answers 400, a VM 403", async () => {
    const profiles = async (t: Tenant, vdc: string) => {
      const doc = parseXml((await t.xml('GET', pathOf(await t.find('orgVdc', `name==${vdc}`)))).text).Vdc;
      return [doc.VdcStorageProfiles.VdcStorageProfile].flat() as Array<Record<string, string>>;
    };
    const bobs = (await profiles(await Tenant.login(sim, 'bob', 'tenant-b'), 'vdc-b'))[0]!['@href']!;
    const slow = (await profiles(alice, 'vdc-a')).find((p) => p['@name'] === 'slow')!['@href']!;
    const vdcHref = await alice.find('orgVdc', 'name==vdc-a');
    const disk = (name: string, profile: string) =>
      alice.xml(
        'POST',
        `${pathOf(vdcHref)}/disk`,
        `<DiskCreateParams xmlns="${NS}"><Disk name="${name}" sizeMb="64"><StorageProfile href="${profile}"/></Disk></DiskCreateParams>`,
        MT('diskCreateParams'),
      );
    const refused = await disk('pvc-x', bobs);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('is not in VDC &quot;vdc-a&quot;');
    const taken = await disk('pvc-slow', slow);
    expect(taken.status).toBe(201);
    expect(parseXml(taken.text).Disk.StorageProfile['@name']).toBe('slow');

    const l = await lookups(alice);
    const vapp = await composeVApp(sim, alice, l, 'disks-3');
    const vm = (storageProfileHref: string) =>
      alice.xml(
        'POST',
        `${vapp}/action/recomposeVApp`,
        recomposeParams([{ name: 'w-0', templateVmHref: l.templateVmHref, storageProfileHref }]),
        MT('recomposeVAppParams'),
      );
    expect((await vm(bobs)).status).toBe(403);
  });
});
