/**
 * `POST /api/vdc/{id}/action/composeVApp` (201 with the new VApp and its task embedded): VMs from
 * catalog templates; with the vApp network and VM helpers recompose (recompose.ts) shares.
 */
import { randomUUID } from 'node:crypto';
import { availableIn, type VApp, type VAppNetwork, type Vm, VmStatus, type World } from '../model/world.js';
import { errors } from '../server/errors.js';
import { requireContentType, xml } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { vmFromSourcedItem } from '../vm/create.js';
import { powerOn, vappStatus } from '../vm/life.js';
import { doc } from '../xml/build.js';
import { MT } from '../xml/ns.js';
import { attrBool, child, childrenNamed, childText, parseBody, type XNode } from '../xml/parse.js';
import { idFrom, path } from '../xml/refs.js';
import { COMPOSE_VAPP_PARAMS } from '../xml/specs.js';
import { vappElement } from '../xml/vm.js';
import { orgOf, renderCtx, vappTask } from './common.js';

const FENCE_MODES = ['bridged', 'natRouted', 'isolated'];

/** The vApp networks of compose or recompose params. */
export function readNetworks(world: World, vdcId: string, orgId: string, params: XNode): VAppNetwork[] {
  return readVAppNetworks(
    world,
    vdcId,
    orgId,
    child(child(params, 'InstantiationParams'), 'NetworkConfigSection'),
  );
}

/** vApp networks from a NetworkConfigSection; parents must be org VDC networks of the vApp's VDC. */
export function readVAppNetworks(
  world: World,
  vdcId: string,
  orgId: string,
  section: XNode | undefined,
): VAppNetwork[] {
  return childrenNamed(section, 'NetworkConfig').map((nc) => {
    const name = nc.attrs.networkName;
    if (!name) throw errors.badRequest('NetworkConfig needs a networkName.');
    const conf = child(nc, 'Configuration');
    const fenceMode = (childText(conf, 'FenceMode') ?? 'bridged') as VAppNetwork['fenceMode'];
    if (!FENCE_MODES.includes(fenceMode))
      throw errors.badRequest(`FenceMode "${fenceMode}" is not one of ${FENCE_MODES.join(', ')}.`);
    const parent = child(conf, 'ParentNetwork');
    let parentNetworkId: string | undefined;
    if (parent) {
      parentNetworkId =
        idFrom(parent.attrs.href, '/network/') ??
        idFrom(parent.attrs.id, 'urn:vcloud:network:') ??
        parent.attrs.id;
      const net = parentNetworkId ? world.networks.get(parentNetworkId) : undefined;
      if (!net || net.orgId !== orgId) throw errors.forbidden();
      if (!availableIn(net, vdcId))
        throw errors.invalidReference(`Network "${net.name}" is not in the vApp's VDC.`);
    } else if (fenceMode === 'bridged')
      throw errors.badRequest(`A bridged vApp network "${name}" needs a ParentNetwork.`);
    return {
      name,
      fenceMode,
      description: childText(nc, 'Description') ?? '',
      ...(parentNetworkId ? { parentNetworkId } : {}),
    };
  });
}

/** Adds or replaces vApp networks by name. */
export function mergeNetworks(vapp: VApp, nets: VAppNetwork[]): void {
  for (const n of nets) {
    const i = vapp.networks.findIndex((x) => x.name === n.name);
    if (i >= 0) vapp.networks[i] = n;
    else vapp.networks.push(n);
  }
}

/** Builds the VMs of the params' SourcedItems, checking names are unique in the vApp. */
export function newVms(sim: Simulator, vapp: VApp, params: XNode): Vm[] {
  const vms: Vm[] = [];
  const names = new Set(vapp.vmIds.map((id) => sim.world.vms.get(id)?.name));
  for (const item of childrenNamed(params, 'SourcedItem')) {
    const vm = vmFromSourcedItem(sim.world, vapp, item, sim.clock.now());
    if (names.has(vm.name))
      throw errors.duplicateName(`The VM name "${vm.name}" is already used in vApp "${vapp.name}".`);
    names.add(vm.name);
    vms.push(vm);
  }
  return vms;
}

/** Registers compose (recompose is in recompose.ts). */
export function composeRoutes(r: Router, sim: Simulator): void {
  const w = sim.world;
  r.add('POST', '/api/vdc/{id}/action/composeVApp', async (ctx) => {
    const vdc = w.visible(w.vdcs, ctx.params.id ?? '', orgOf(ctx));
    requireContentType(ctx, MT.composeVAppParams);
    const params = parseBody(await ctx.body(), 'ComposeVAppParams', COMPOSE_VAPP_PARAMS);
    const name = params.attrs.name;
    if (!name) throw errors.badRequest('ComposeVAppParams needs a name.');
    if ([...w.vapps.values()].some((a) => a.vdcId === vdc.id && a.name === name))
      throw errors.duplicateName(`The vApp name "${name}" is already used in VDC "${vdc.name}".`);
    const vapp: VApp = {
      id: randomUUID(),
      name,
      description: childText(params, 'Description') ?? '',
      vdcId: vdc.id,
      orgId: vdc.orgId,
      ownerName: ctx.session!.user.name,
      status: VmStatus.UNRESOLVED,
      deployed: false,
      networks: readNetworks(w, vdc.id, vdc.orgId, params),
      vmIds: [],
      metadata: new Map(),
      createdAt: sim.clock.now(),
    };
    const vms = newVms(sim, vapp, params);
    const powerOnAfter = attrBool(params, 'powerOn', false);
    w.vapps.set(vapp.id, vapp);
    for (const vm of vms) {
      w.vms.set(vm.id, vm);
      vapp.vmIds.push(vm.id);
    }
    vappTask(
      sim,
      ctx,
      vapp,
      'vdcComposeVapp',
      `Created Virtual Application ${vapp.name}(${vapp.id})`,
      () => {
        for (const vm of vms) if (w.vms.has(vm.id)) vm.status = VmStatus.POWERED_OFF;
        vapp.status = vappStatus(sim, vapp.vmIds);
        if (powerOnAfter) for (const vm of vms) powerOn(sim, vm);
      },
      () => {
        vapp.status = VmStatus.FAILED_CREATION;
        for (const vm of vms) vm.status = VmStatus.FAILED_CREATION;
      },
    );
    return xml(201, MT.vApp, doc(vappElement(renderCtx(sim, ctx), vapp)), {
      Location: `${ctx.base}${path.vapp(vapp.id)}`,
    });
  });
}
