/**
 * vApp and VM GET, power on/off, undeploy and delete. Each change is a Task (202). VCD's
 * preconditions hold: a VM powers on only when off, deletes only when undeployed; a vApp deletes
 * only when undeployed (its VMs go with it).
 */
import { VmStatus } from '../model/world.js';
import { errors } from '../server/errors.js';
import { type Ctx, requireContentType, xml } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { deleteVm, powerOff, powerOn } from '../vm/life.js';
import { doc } from '../xml/build.js';
import { MT } from '../xml/ns.js';
import { childText, parseBody } from '../xml/parse.js';
import { UNDEPLOY_VAPP_PARAMS } from '../xml/specs.js';
import { vappElement, vmElement } from '../xml/vm.js';
import { accepted, idParam, orgOf, renderCtx, vappTask, vmTask } from './common.js';

const UNDEPLOY_ACTIONS = ['powerOff', 'suspend', 'shutdown', 'force', 'default'];

async function readUndeploy(ctx: Ctx): Promise<void> {
  const body = await ctx.body();
  if (body.length === 0) return;
  requireContentType(ctx, MT.undeployVAppParams);
  const p = parseBody(body, 'UndeployVAppParams', UNDEPLOY_VAPP_PARAMS);
  const action = childText(p, 'UndeployPowerAction');
  if (action && !UNDEPLOY_ACTIONS.includes(action))
    throw errors.badRequest(`UndeployPowerAction "${action}" is not one of ${UNDEPLOY_ACTIONS.join(', ')}.`);
}

/** Registers vApp/VM GET, power, undeploy and delete routes. */
export function powerRoutes(r: Router, sim: Simulator): void {
  const w = sim.world;
  const vmOf = (ctx: Ctx) => w.visibleVm(idParam(ctx), orgOf(ctx));
  const vappOf = (ctx: Ctx) => w.visible(w.vapps, idParam(ctx), orgOf(ctx));
  const state = (what: string, name: string, why: string) =>
    errors.invalidState(`The requested operation could not be executed since ${what} "${name}" ${why}.`);

  r.add('GET', '/api/vApp/vapp-{id}', (ctx) =>
    xml(200, MT.vApp, doc(vappElement(renderCtx(sim, ctx), vappOf(ctx)))),
  );
  r.add('GET', '/api/vApp/vm-{id}', (ctx) =>
    xml(200, MT.vm, doc(vmElement(renderCtx(sim, ctx), vmOf(ctx), true))),
  );

  r.add('POST', '/api/vApp/vm-{id}/power/action/powerOn', (ctx) => {
    const vm = vmOf(ctx);
    if (vm.status === VmStatus.POWERED_ON) throw state('VM', vm.name, 'is not powered off');
    if (vm.status !== VmStatus.POWERED_OFF)
      throw state('VM', vm.name, 'is not in a state that can be powered on');
    return accepted(
      sim,
      ctx,
      vmTask(sim, ctx, vm, 'vappPowerOn', `Powered on Virtual Machine ${vm.name}(${vm.id})`, () =>
        powerOn(sim, vm),
      ),
    );
  });
  r.add('POST', '/api/vApp/vm-{id}/power/action/powerOff', (ctx) => {
    const vm = vmOf(ctx);
    if (vm.status !== VmStatus.POWERED_ON) throw state('VM', vm.name, 'is not powered on');
    return accepted(
      sim,
      ctx,
      vmTask(sim, ctx, vm, 'vappPowerOff', `Powered off Virtual Machine ${vm.name}(${vm.id})`, () =>
        powerOff(sim, vm, false),
      ),
    );
  });
  r.add('POST', '/api/vApp/vm-{id}/action/undeploy', async (ctx) => {
    const vm = vmOf(ctx);
    await readUndeploy(ctx);
    if (!vm.deployed) throw state('VM', vm.name, 'is not deployed');
    return accepted(
      sim,
      ctx,
      vmTask(sim, ctx, vm, 'vappUndeployPowerOff', `Undeployed Virtual Machine ${vm.name}(${vm.id})`, () =>
        powerOff(sim, vm, true),
      ),
    );
  });
  r.add('DELETE', '/api/vApp/vm-{id}', (ctx) => {
    const vm = vmOf(ctx);
    if (vm.status === VmStatus.POWERED_ON) throw state('VM', vm.name, 'is powered on; stop it first');
    if (vm.deployed) throw state('VM', vm.name, 'is deployed; undeploy it first');
    return accepted(
      sim,
      ctx,
      vmTask(sim, ctx, vm, 'vappDeleteVm', `Deleted Virtual Machine ${vm.name}(${vm.id})`, () =>
        deleteVm(sim, vm),
      ),
    );
  });

  r.add('POST', '/api/vApp/vapp-{id}/power/action/powerOn', (ctx) => {
    const vapp = vappOf(ctx);
    const vms = vapp.vmIds.map((id) => w.vms.get(id)!).filter((vm) => vm.status === VmStatus.POWERED_OFF);
    if (vapp.vmIds.length === 0) throw state('vApp', vapp.name, 'has no VMs');
    return accepted(
      sim,
      ctx,
      vappTask(
        sim,
        ctx,
        vapp,
        'vappPowerOn',
        `Powered on Virtual Application ${vapp.name}(${vapp.id})`,
        () => {
          for (const vm of vms) powerOn(sim, vm);
        },
      ),
    );
  });
  r.add('POST', '/api/vApp/vapp-{id}/power/action/powerOff', (ctx) => {
    const vapp = vappOf(ctx);
    const vms = vapp.vmIds.map((id) => w.vms.get(id)!).filter((vm) => vm.status === VmStatus.POWERED_ON);
    if (vms.length === 0) throw state('vApp', vapp.name, 'is not powered on');
    return accepted(
      sim,
      ctx,
      vappTask(
        sim,
        ctx,
        vapp,
        'vappPowerOff',
        `Powered off Virtual Application ${vapp.name}(${vapp.id})`,
        () => {
          for (const vm of vms) powerOff(sim, vm, false);
        },
      ),
    );
  });
  r.add('POST', '/api/vApp/vapp-{id}/action/undeploy', async (ctx) => {
    const vapp = vappOf(ctx);
    await readUndeploy(ctx);
    if (!vapp.deployed) throw state('vApp', vapp.name, 'is not deployed');
    return accepted(
      sim,
      ctx,
      vappTask(
        sim,
        ctx,
        vapp,
        'vappUndeployPowerOff',
        `Undeployed Virtual Application ${vapp.name}(${vapp.id})`,
        () => {
          for (const id of vapp.vmIds) powerOff(sim, w.vms.get(id)!, true);
          vapp.deployed = false;
        },
      ),
    );
  });
  r.add('DELETE', '/api/vApp/vapp-{id}', (ctx) => {
    const vapp = vappOf(ctx);
    if (vapp.deployed) throw state('vApp', vapp.name, 'is deployed; undeploy it first');
    return accepted(
      sim,
      ctx,
      vappTask(
        sim,
        ctx,
        vapp,
        'vdcDeleteVapp',
        `Deleted Virtual Application ${vapp.name}(${vapp.id})`,
        () => {
          for (const id of [...vapp.vmIds]) deleteVm(sim, w.vms.get(id)!);
          w.vapps.delete(vapp.id);
        },
      ),
    );
  });
}
