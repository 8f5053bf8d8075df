/**
 * Independent (named) disks, as VCD serves them: create in a VDC (`DiskCreateParams`, answered
 * 201 with the Disk and its creation task), read, list the VM it is attached to, attach to and
 * detach from a VM (`DiskAttachOrDetachParams`, a task on the VM), delete (refused while attached).
 * A deleted VM leaves its disks detached, not deleted: they are independent of it.
 */
import { randomUUID } from 'node:crypto';
import type { NamedDisk, Vm } from '../model/world.js';
import { errors } from '../server/errors.js';
import { type Ctx, requireContentType, xml } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { doc } from '../xml/build.js';
import { attachedVmsElement, diskElement } from '../xml/disk.js';
import { MT } from '../xml/ns.js';
import { child, childText, parseBody } from '../xml/parse.js';
import { idFrom, path, urn } from '../xml/refs.js';
import { DISK_ATTACH_OR_DETACH_PARAMS, DISK_CREATE_PARAMS } from '../xml/specs.js';
import { tasksInProgress } from '../xml/task.js';
import { accepted, acceptVmTask, entityTask, idParam, orgOf } from './common.js';

const MB = 2 ** 20;

/** The disk's size in MB from `size` (bytes) or `sizeMb`. @throws VCD's 400 when neither is a positive number. */
function sizeMbOf(attrs: Record<string, string>): number {
  const mb = attrs.sizeMb !== undefined ? Number(attrs.sizeMb) : Number(attrs.size) / MB;
  if (!(mb > 0) || !Number.isFinite(mb)) throw errors.badRequest('The disk size must be a positive number.');
  return Math.ceil(mb);
}

/** Reads `DiskCreateParams` into a new disk of `vdcId` (its storage profile, else the VDC's default). */
async function readDisk(sim: Simulator, ctx: Ctx, vdcId: string, orgId: string): Promise<NamedDisk> {
  const w = sim.world;
  requireContentType(ctx, MT.diskCreateParams);
  const params = parseBody(await ctx.body(), 'DiskCreateParams', DISK_CREATE_PARAMS);
  const disk = child(params, 'Disk');
  const name = disk?.attrs.name;
  if (!disk || !name) throw errors.badRequest('DiskCreateParams needs a Disk with a name.');
  const vdc = w.vdcs.get(vdcId)!;
  const profileRef = child(disk, 'StorageProfile');
  // Any profile not the VDC's is a 400 here, another org's too (a VM's answers 403 for that).
  const storageProfileId = profileRef
    ? w.vdcStorageProfileId(vdc, idFrom(profileRef.attrs.href, '/vdcStorageProfile/'), () =>
        errors.invalidReference(
          `Storage profile ${profileRef.attrs.href ?? ''} is not in VDC "${vdc.name}".`,
        ),
      )
    : w.defaultStorageProfileId(vdc);
  return {
    id: randomUUID(),
    name,
    description: childText(disk, 'Description') ?? '',
    vdcId,
    orgId,
    sizeMb: sizeMbOf(disk.attrs),
    storageProfileId,
    busType: Number(disk.attrs.busType ?? 6),
    busSubType: disk.attrs.busSubType ?? 'VirtualSCSI',
  };
}

/** The disk a `DiskAttachOrDetachParams` body names, of the caller's org. */
async function namedIn(sim: Simulator, ctx: Ctx): Promise<NamedDisk> {
  requireContentType(ctx, MT.diskAttachOrDetachParams);
  const params = parseBody(await ctx.body(), 'DiskAttachOrDetachParams', DISK_ATTACH_OR_DETACH_PARAMS);
  const id = idFrom(child(params, 'Disk')?.attrs.href, '/disk/');
  if (!id) throw errors.badRequest('DiskAttachOrDetachParams needs a Disk reference.');
  return sim.world.visible(sim.world.disks, id, orgOf(ctx));
}

/** Registers the named-disk routes. */
export function diskRoutes(r: Router, sim: Simulator): void {
  const w = sim.world;
  const diskTask = (ctx: Ctx, d: NamedDisk, operationName: string, verb: string, effect: () => void) =>
    entityTask(sim, ctx, {
      operationName,
      operation: `${verb} Disk ${d.name}(${d.id})`,
      owner: { type: MT.disk, name: d.name, path: path.disk(d.id), urn: urn('disk', d.id) },
      locks: [`disk:${d.id}`],
      effect,
    });
  const visibleDisk = (ctx: Ctx) => w.visible(w.disks, idParam(ctx), orgOf(ctx));

  r.add('POST', '/api/vdc/{id}/disk', async (ctx) => {
    const vdc = w.visible(w.vdcs, ctx.params.id ?? '', orgOf(ctx));
    const disk = await readDisk(sim, ctx, vdc.id, vdc.orgId);
    w.disks.set(disk.id, disk);
    const task = diskTask(ctx, disk, 'vdcCreateDisk', 'Created', () => {});
    const tasks = tasksInProgress([task], ctx.base, w.orgs.get(disk.orgId)?.name ?? '', disk.orgId);
    return xml(201, MT.disk, doc(diskElement(w, disk, ctx.base, tasks)));
  });
  r.add('GET', '/api/disk/{id}', (ctx) => xml(200, MT.disk, doc(diskElement(w, visibleDisk(ctx), ctx.base))));
  r.add('GET', '/api/disk/{id}/attachedVms', (ctx) =>
    xml(200, MT.vms, doc(attachedVmsElement(w, visibleDisk(ctx), ctx.base))),
  );
  r.add('DELETE', '/api/disk/{id}', (ctx) => {
    const disk = visibleDisk(ctx);
    if (disk.attachedVmId)
      throw errors.invalidState(`The disk "${disk.name}" is attached to a VM; detach it first.`);
    const task = diskTask(ctx, disk, 'vdcDeleteDisk', 'Deleted', () => w.disks.delete(disk.id));
    return accepted(sim, ctx, task);
  });
  const vmOf = (ctx: Ctx): Vm => w.visibleVm(idParam(ctx), orgOf(ctx));
  r.add('POST', '/api/vApp/vm-{id}/disk/action/attach', async (ctx) => {
    const vm = vmOf(ctx);
    const disk = await namedIn(sim, ctx);
    if (disk.attachedVmId) throw errors.invalidState(`The disk "${disk.name}" is already attached to a VM.`);
    if (disk.vdcId !== w.vapps.get(vm.vappId)?.vdcId)
      throw errors.invalidReference(`The disk "${disk.name}" is not in the VM's VDC.`);
    return acceptVmTask(sim, ctx, vm, 'vappAttachDisk', 'Attached disk to', () => {
      disk.attachedVmId = vm.id;
    });
  });
  r.add('POST', '/api/vApp/vm-{id}/disk/action/detach', async (ctx) => {
    const vm = vmOf(ctx);
    const disk = await namedIn(sim, ctx);
    if (disk.attachedVmId !== vm.id)
      throw errors.invalidState(`The disk "${disk.name}" is not attached to VM "${vm.name}".`);
    return acceptVmTask(sim, ctx, vm, 'vappDetachDisk', 'Detached disk from', () => {
      disk.attachedVmId = undefined;
    });
  });
}
