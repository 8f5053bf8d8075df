/** The `Disk` element of an independent (named) disk, and the `Vms` list of the VMs it is attached to. */
import type { NamedDisk, World } from '../model/world.js';
import { el, text } from './build.js';
import { MT, ROOT_NS } from './ns.js';
import { link, path, ref, urn } from './refs.js';

/** `<Disk>` as VCD answers GET /api/disk/{id}: size, bus, status, its storage profile; `tasks` in progress. */
export function diskElement(world: World, disk: NamedDisk, base: string, tasks = ''): string {
  const p = path.disk(disk.id);
  const profile = world.storageProfiles.get(disk.storageProfileId);
  return el(
    'Disk',
    {
      ...ROOT_NS,
      name: disk.name,
      sizeMb: disk.sizeMb,
      busType: disk.busType,
      busSubType: disk.busSubType,
      shareable: 'false',
      sharingType: 'None',
      encrypted: 'false',
      status: 1,
      id: urn('disk', disk.id),
      href: `${base}${p}`,
      type: MT.disk,
    },
    link(base, 'up', MT.vdc, path.vdc(disk.vdcId)),
    disk.attachedVmId ? undefined : link(base, 'remove', undefined, p),
    link(base, 'down', MT.vms, `${p}/attachedVms`),
    text('Description', disk.description),
    tasks || undefined,
    ref('StorageProfile', base, MT.storageProfile, path.storageProfile(disk.storageProfileId), profile?.name),
  );
}

/** `<Vms>`: the VM a disk is attached to (none or one). */
export function attachedVmsElement(world: World, disk: NamedDisk, base: string): string {
  const vm = disk.attachedVmId ? world.vms.get(disk.attachedVmId) : undefined;
  return el(
    'Vms',
    { ...ROOT_NS, type: MT.vms },
    vm ? ref('VmReference', base, MT.vm, path.vm(vm.id), vm.name, urn('vm', vm.id)) : undefined,
  );
}
