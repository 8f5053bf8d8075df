/**
 * vApp and VM GET, power on/off, guest shutdown, undeploy and delete. Each change is a Task (202).
 * VCD's preconditions hold: a VM powers on only when off, shuts down only when on (and its tools
 * run), deletes only when undeployed; a vApp deletes only when undeployed (its VMs go with it).
 */
import { type VApp, type Vm, VmStatus } from '../model/world.js';
import { errors } from '../server/errors.js';
import { type Ctx, requireContentType, xml } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { deleteVm, powerOff, powerOn, reboot, shutdownGuest } from '../vm/life.js';
import { doc } from '../xml/build.js';
import { MT } from '../xml/ns.js';
import { attrBool, childText, parseBody } from '../xml/parse.js';
import { DEPLOY_VAPP_PARAMS, UNDEPLOY_VAPP_PARAMS } from '../xml/specs.js';
import { vappElement, vmElement } from '../xml/vm.js';
import { acceptVappTask, acceptVmTask, idParam, orgOf, renderCtx } from './common.js';

const UNDEPLOY_ACTIONS = ['powerOff', 'suspend', 'shutdown', 'force', 'default'];

async function readUndeploy(ctx: Ctx): Promise<Options> {
  const body = await ctx.body();
  if (body.length === 0) return {};
  requireContentType(ctx, MT.undeployVAppParams);
  const p = parseBody(body, 'UndeployVAppParams', UNDEPLOY_VAPP_PARAMS);
  const action = childText(p, 'UndeployPowerAction');
  if (action && !UNDEPLOY_ACTIONS.includes(action))
    throw errors.badRequest(`UndeployPowerAction "${action}" is not one of ${UNDEPLOY_ACTIONS.join(', ')}.`);
  return action ? { undeployAction: action } : {};
}

/** `DeployVAppParams`: powerOn (default true) and forceCustomization (run guest customization again). */
async function readDeploy(ctx: Ctx): Promise<Options> {
  const body = await ctx.body();
  if (body.length === 0) return { powerOn: true };
  requireContentType(ctx, MT.deployVAppParams);
  const p = parseBody(body, 'DeployVAppParams', DEPLOY_VAPP_PARAMS);
  return {
    powerOn: attrBool(p, 'powerOn', true),
    forceCustomization: attrBool(p, 'forceCustomization', false),
  };
}

/** What a request body said about an operation. */
interface Options {
  powerOn?: boolean;
  forceCustomization?: boolean;
  /** UndeployPowerAction; `shutdown` asks the guest (the SDK's VM.Shutdown), the rest power off. */
  undeployAction?: string;
}

const refuse = (what: string, name: string, why: string) =>
  errors.invalidState(`The requested operation could not be executed since ${what} "${name}" ${why}.`);

/** One VM or vApp operation: route, task name, what must hold first, what it does. */
interface Op<T> {
  method: string;
  path: string;
  operationName: string;
  verb: string;
  /** Reads the request body, if the operation takes one. */
  read?: (ctx: Ctx) => Promise<Options>;
  /** Throws VCD's 400 when the state does not allow the operation. */
  check(target: T, opts: Options): void;
  effect(target: T, opts: Options): void;
}

/** A VM operation that needs the VM on. */
const vmOn = (vm: Vm) => {
  if (vm.status !== VmStatus.POWERED_ON) throw refuse('VM', vm.name, 'is not powered on');
};

/** Undeploys a VM: by guest shutdown, a guest that does not go down fails the task, VM left on. */
function undeployVm(sim: Simulator, vm: Vm, opts: Options): void {
  if (opts.undeployAction === 'shutdown' && vm.status === VmStatus.POWERED_ON) {
    shutdownGuest(sim, vm);
    if (vm.status === VmStatus.POWERED_ON)
      throw refuse('VM', vm.name, 'did not shut down: its guest did not power it off');
  }
  powerOff(sim, vm, true);
}

/** Deploys a VM: powered on unless the body says not to, customized again if it asks. */
function deployVm(sim: Simulator, vm: Vm, opts: Options): void {
  if (opts.forceCustomization) vm.needsCustomization = true;
  if (opts.powerOn === false) vm.deployed = true;
  else powerOn(sim, vm);
}

/** The VM operations VCD offers under `/api/vApp/vm-{id}`. */
function vmOps(sim: Simulator): Op<Vm>[] {
  return [
    {
      method: 'POST',
      path: 'power/action/powerOn',
      operationName: 'vappPowerOn',
      verb: 'Powered on',
      check: (vm) => {
        if (vm.status === VmStatus.POWERED_ON) throw refuse('VM', vm.name, 'is not powered off');
        if (vm.status !== VmStatus.POWERED_OFF)
          throw refuse('VM', vm.name, 'is not in a state that can be powered on');
      },
      effect: (vm) => powerOn(sim, vm),
    },
    {
      method: 'POST',
      path: 'power/action/powerOff',
      operationName: 'vappPowerOff',
      verb: 'Powered off',
      check: vmOn,
      effect: (vm) => powerOff(sim, vm, false),
    },
    {
      method: 'POST',
      path: 'power/action/shutdown',
      operationName: 'vappShutdownGuest',
      verb: 'Shut down guest of',
      check: vmOn,
      effect: (vm) => shutdownGuest(sim, vm),
    },
    {
      method: 'POST',
      path: 'action/undeploy',
      operationName: 'vappUndeployPowerOff',
      verb: 'Undeployed',
      read: readUndeploy,
      check: (vm) => {
        if (!vm.deployed) throw refuse('VM', vm.name, 'is not deployed');
      },
      effect: (vm, opts) => undeployVm(sim, vm, opts),
    },
    {
      method: 'POST',
      path: 'power/action/reboot',
      operationName: 'vappReboot',
      verb: 'Rebooted',
      check: vmOn,
      effect: (vm) => reboot(sim, vm),
    },
    {
      method: 'POST',
      path: 'action/deploy',
      operationName: 'vappDeploy',
      verb: 'Deployed',
      read: readDeploy,
      check: (vm) => {
        if (vm.status === VmStatus.POWERED_ON)
          throw refuse('VM', vm.name, 'is already deployed and powered on');
        if (vm.status !== VmStatus.POWERED_OFF)
          throw refuse('VM', vm.name, 'is not in a state that can be deployed');
      },
      effect: (vm, opts) => deployVm(sim, vm, opts),
    },
    {
      method: 'DELETE',
      path: '',
      operationName: 'vappDeleteVm',
      verb: 'Deleted',
      check: (vm) => {
        if (vm.status === VmStatus.POWERED_ON) throw refuse('VM', vm.name, 'is powered on; stop it first');
        if (vm.deployed) throw refuse('VM', vm.name, 'is deployed; undeploy it first');
      },
      effect: (vm) => deleteVm(sim, vm),
    },
  ];
}

/** The vApp operations under `/api/vApp/vapp-{id}`: each acts on the vApp's VMs as VCD does. */
function vappOps(sim: Simulator): Op<VApp>[] {
  const w = sim.world;
  const vmsOf = (vapp: VApp, status: number) =>
    vapp.vmIds.map((id) => w.vms.get(id)!).filter((vm) => vm.status === status);
  return [
    {
      method: 'POST',
      path: 'power/action/powerOn',
      operationName: 'vappPowerOn',
      verb: 'Powered on',
      check: (vapp) => {
        if (vapp.vmIds.length === 0) throw refuse('vApp', vapp.name, 'has no VMs');
      },
      effect: (vapp) => {
        for (const vm of vmsOf(vapp, VmStatus.POWERED_OFF)) powerOn(sim, vm);
      },
    },
    {
      method: 'POST',
      path: 'power/action/powerOff',
      operationName: 'vappPowerOff',
      verb: 'Powered off',
      check: (vapp) => {
        if (vmsOf(vapp, VmStatus.POWERED_ON).length === 0)
          throw refuse('vApp', vapp.name, 'is not powered on');
      },
      effect: (vapp) => {
        for (const vm of vmsOf(vapp, VmStatus.POWERED_ON)) powerOff(sim, vm, false);
      },
    },
    {
      method: 'POST',
      path: 'action/undeploy',
      operationName: 'vappUndeployPowerOff',
      verb: 'Undeployed',
      read: readUndeploy,
      check: (vapp) => {
        if (!vapp.deployed) throw refuse('vApp', vapp.name, 'is not deployed');
      },
      effect: (vapp) => {
        for (const id of vapp.vmIds) powerOff(sim, w.vms.get(id)!, true);
        vapp.deployed = false;
      },
    },
    {
      method: 'DELETE',
      path: '',
      operationName: 'vdcDeleteVapp',
      verb: 'Deleted',
      check: (vapp) => {
        if (vapp.deployed) throw refuse('vApp', vapp.name, 'is deployed; undeploy it first');
      },
      effect: (vapp) => {
        for (const id of [...vapp.vmIds]) deleteVm(sim, w.vms.get(id)!);
        w.vapps.delete(vapp.id);
      },
    },
  ];
}

const route = (prefix: string, p: string) => (p ? `${prefix}/${p}` : prefix);

/** Registers vApp/VM GET, power, undeploy and delete routes. */
export function powerRoutes(r: Router, sim: Simulator): void {
  const w = sim.world;
  r.add('GET', '/api/vApp/vapp-{id}', (ctx) =>
    xml(200, MT.vApp, doc(vappElement(renderCtx(sim, ctx), w.visible(w.vapps, idParam(ctx), orgOf(ctx))))),
  );
  r.add('GET', '/api/vApp/vm-{id}', (ctx) =>
    xml(200, MT.vm, doc(vmElement(renderCtx(sim, ctx), w.visibleVm(idParam(ctx), orgOf(ctx)), true))),
  );
  for (const op of vmOps(sim))
    r.add(op.method, route('/api/vApp/vm-{id}', op.path), async (ctx) => {
      const vm = w.visibleVm(idParam(ctx), orgOf(ctx));
      const opts = op.read ? await op.read(ctx) : {};
      op.check(vm, opts);
      return acceptVmTask(sim, ctx, vm, op.operationName, op.verb, () => op.effect(vm, opts));
    });
  for (const op of vappOps(sim))
    r.add(op.method, route('/api/vApp/vapp-{id}', op.path), async (ctx) => {
      const vapp = w.visible(w.vapps, idParam(ctx), orgOf(ctx));
      const opts = op.read ? await op.read(ctx) : {};
      op.check(vapp, opts);
      return acceptVappTask(sim, ctx, vapp, op.operationName, op.verb, () => op.effect(vapp, opts));
    });
}
