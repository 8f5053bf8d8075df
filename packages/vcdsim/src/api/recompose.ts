/**
 * `POST /api/vApp/vapp-{id}/action/recomposeVApp` (202 with a Task): adds VMs from catalog
 * templates (and vApp networks), deletes the VMs its DeleteItems name, renames the vApp.
 */
import type { VApp, Vm } from '../model/world.js';
import { VmStatus } from '../model/world.js';
import { errors } from '../server/errors.js';
import { requireContentType } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { deleteVm, powerOn, vappStatus } from '../vm/life.js';
import { MT } from '../xml/ns.js';
import { attrBool, childrenNamed, parseBody, type XNode } from '../xml/parse.js';
import { idFrom } from '../xml/refs.js';
import { RECOMPOSE_VAPP_PARAMS } from '../xml/specs.js';
import { accepted, idParam, orgOf, vappTask } from './common.js';
import { mergeNetworks, newVms, readNetworks } from './compose.js';

/** The VMs to add and to delete; the vApp's networks are merged, and put back if the params are refused. */
function recomposeParts(sim: Simulator, vapp: VApp, params: XNode): { vms: Vm[]; deletions: Vm[] } {
  const w = sim.world;
  const nets = readNetworks(w, vapp.vdcId, vapp.orgId, params);
  const before = vapp.networks;
  vapp.networks = [...before];
  mergeNetworks(vapp, nets);
  try {
    const vms = newVms(sim, vapp, params);
    const deletions: Vm[] = [];
    for (const d of childrenNamed(params, 'DeleteItem')) {
      const id = idFrom(d.attrs.href, '/vApp/vm-');
      const vm = id ? w.vms.get(id) : undefined;
      if (!vm || vm.vappId !== vapp.id) throw errors.forbidden();
      deletions.push(vm);
    }
    return { vms, deletions };
  } catch (e) {
    vapp.networks = before;
    throw e;
  }
}

/** Registers recompose. */
export function recomposeRoutes(r: Router, sim: Simulator): void {
  const w = sim.world;
  r.add('POST', '/api/vApp/vapp-{id}/action/recomposeVApp', async (ctx) => {
    const vapp = w.visible(w.vapps, idParam(ctx), orgOf(ctx));
    requireContentType(ctx, MT.recomposeVAppParams);
    const params = parseBody(await ctx.body(), 'RecomposeVAppParams', RECOMPOSE_VAPP_PARAMS);
    sim.tasks.assertFree(
      [`vapp:${vapp.id}`, ...vapp.vmIds.map((id) => `vm:${id}`)],
      `urn:vcloud:vapp:${vapp.id}`,
    );
    const { vms, deletions } = recomposeParts(sim, vapp, params);
    const powerOnAfter = attrBool(params, 'powerOn', false);
    if (params.attrs.name) vapp.name = params.attrs.name;
    for (const vm of vms) {
      w.vms.set(vm.id, vm);
      vapp.vmIds.push(vm.id);
    }
    const task = vappTask(
      sim,
      ctx,
      vapp,
      'vdcRecomposeVapp',
      `Updated Virtual Application ${vapp.name}(${vapp.id})`,
      () => {
        for (const vm of deletions) deleteVm(sim, vm);
        for (const vm of vms) if (w.vms.has(vm.id)) vm.status = VmStatus.POWERED_OFF;
        vapp.status = vappStatus(sim, vapp.vmIds);
        if (powerOnAfter) for (const vm of vms) powerOn(sim, vm);
      },
      () => {
        // A failed clone leaves nothing behind.
        for (const vm of vms) deleteVm(sim, vm);
      },
    );
    return accepted(sim, ctx, task);
  });
}
