/**
 * A VM's internal disks in a VmSpecSection's DiskSection: a DiskSettings with a DiskId resizes that
 * disk (grow only), one without adds a disk on the controller its AdapterType, BusNumber and
 * UnitNumber name, as VCD does. VCD's controller codes and limits are kept: a slot holds one disk,
 * SCSI unit 7 is the controller's, and a SCSI bus has one controller type.
 */
import { randomUUID } from 'node:crypto';
import { ADAPTERS, type Adapter, adapterCode } from '../model/disk-adapters.js';
import type { Disk, Vm, World } from '../model/world.js';
import { errors } from '../server/errors.js';
import { child, childInt, childrenNamed, childText, type XNode } from '../xml/parse.js';
import { idFrom } from '../xml/refs.js';

const family = (a: Adapter) => (a.scsi ? 'scsi' : a.subType);

/** The storage profile a DiskSettings names, which must be one of the VM's VDC; else the VM's. */
function storageProfileOf(world: World, vm: Vm, ds: XNode): string {
  const ref = child(ds, 'StorageProfile');
  if (!ref) return vm.storageProfileId;
  const id =
    idFrom(ref.attrs.href, '/vdcStorageProfile/') ?? idFrom(ref.attrs.id, 'urn:vcloud:vdcstorageProfile:');
  const sp = id ? world.storageProfiles.get(id) : undefined;
  const vdcId = world.vapps.get(vm.vappId)?.vdcId;
  if (!sp || sp.vdcId !== vdcId)
    throw errors.invalidReference(`The storage profile of the new disk is not one of the VM's VDC.`);
  return sp.id;
}

/** A new disk from a DiskSettings without DiskId, its slot checked against the VM's disks. */
function newDisk(world: World, vm: Vm, ds: XNode, sizeMb: number): Disk {
  const code = childText(ds, 'AdapterType') ?? '5';
  const adapter = ADAPTERS[code];
  if (!adapter) throw errors.badRequest(`AdapterType "${code}" is not a disk controller type.`);
  const bus = childInt(ds, 'BusNumber') ?? 0;
  const unit = childInt(ds, 'UnitNumber') ?? 0;
  if (bus < 0 || bus >= adapter.buses || unit < 0 || unit >= adapter.units || (adapter.scsi && unit === 7))
    throw errors.badRequest(`Bus ${bus} unit ${unit} is not a free slot of a ${adapter.subType} controller.`);
  for (const d of vm.disks) {
    const other = ADAPTERS[adapterCode(d.adapterType)] as Adapter;
    if (family(other) !== family(adapter) || d.busNumber !== bus) continue;
    if (d.unitNumber === unit)
      throw errors.badRequest(`A disk already sits on ${adapter.subType} bus ${bus} unit ${unit}.`);
    if (other.subType !== adapter.subType)
      throw errors.badRequest(`SCSI bus ${bus} is a ${other.subType} controller, not ${adapter.subType}.`);
  }
  return {
    id: randomUUID(),
    diskId: Math.max(1999, ...vm.disks.map((d) => d.diskId)) + 1,
    sizeMb,
    busNumber: bus,
    unitNumber: unit,
    adapterType: adapter.subType,
    storageProfileId: storageProfileOf(world, vm, ds),
  };
}

/**
 * Applies a DiskSection to the VM as VCD does: the section is the VM's whole list of internal
 * disks. A DiskSettings with DiskId resizes that disk (grow only), one without adds a disk, and an
 * internal disk the section leaves out is removed (the SDK's DeleteInternalDisk); a VM keeps at
 * least one disk. Named disks are listed too but attached and detached by their own calls.
 */
export function applyDiskSection(world: World, vm: Vm, section: XNode | undefined): void {
  if (!section) return;
  const kept = new Set<number>();
  const added: Disk[] = [];
  for (const ds of childrenNamed(section, 'DiskSettings')) {
    if (child(ds, 'Disk')) continue;
    const size = childInt(ds, 'SizeMb');
    const diskId = childInt(ds, 'DiskId');
    if (diskId === undefined) {
      if (size === undefined || size <= 0) throw errors.badRequest('A new disk needs a positive SizeMb.');
      const disk = newDisk(world, { ...vm, disks: [...vm.disks, ...added] }, ds, size);
      added.push(disk);
      continue;
    }
    const disk = vm.disks.find((d) => d.diskId === diskId);
    if (!disk) throw errors.badRequest(`No disk with DiskId ${diskId}.`);
    kept.add(diskId);
    if (size === undefined) continue;
    if (size < disk.sizeMb)
      throw errors.badRequest(
        `Disk size ${size} MB is smaller than the current ${disk.sizeMb} MB; disks cannot shrink.`,
      );
    disk.sizeMb = size;
  }
  const disks = [...vm.disks.filter((d) => kept.has(d.diskId)), ...added];
  if (disks.length === 0) throw errors.badRequest(`VM "${vm.name}" must keep at least one disk.`);
  vm.disks = disks;
}
