/**
 * Changing a VM: `reconfigureVm` (the whole Vm re-sent: name, ExtraConfig, sizing, disks, NICs,
 * guest customization, product sections) and the per-section GET/PUT endpoints. Input is checked
 * up front (400 at once); the change lands when its Task finishes.
 */
import { type Vm, VmStatus } from '../model/world.js';
import { errors } from '../server/errors.js';
import { type Ctx, requireContentType, xml } from '../server/http.js';
import type { Router } from '../server/router.js';
import type { Simulator } from '../simulator.js';
import { networkOf } from '../vm/network.js';
import { applyExtraConfig, applyVmSpec, readGuest, readNics, readProductSections } from '../vm/read.js';
import { doc } from '../xml/build.js';
import { MT } from '../xml/ns.js';
import { child, childrenNamed, childText, parseBody, type XNode } from '../xml/parse.js';
import {
  guestCustomizationSection,
  networkConnectionSection,
  productSectionList,
  virtualHardwareSection,
} from '../xml/sections.js';
import {
  GUEST_CUSTOMIZATION_SECTION,
  NETWORK_CONFIG_SECTION,
  NETWORK_CONNECTION_SECTION,
  PRODUCT_SECTION_LIST,
  VIRTUAL_HARDWARE_SECTION,
  VM,
} from '../xml/specs.js';
import { networkConfigSection } from '../xml/vm.js';
import { acceptVappTask, acceptVmTask, idParam, orgOf, renderCtx } from './common.js';
import { readVAppNetworks } from './compose.js';

/** A copy of the VM's changeable parts, to validate a change before it lands. */
function draftOf(vm: Vm): Vm {
  return {
    ...vm,
    disks: vm.disks.map((d) => ({ ...d })),
    nics: vm.nics.map((n) => ({ ...n })),
    extraConfig: new Map(vm.extraConfig),
    guest: { ...vm.guest },
    productSections: structuredClone(vm.productSections),
  };
}

const nicShape = (vm: Vm) =>
  JSON.stringify(vm.nics.map((n) => [n.index, n.network, n.allocationMode, n.requestedIp]));

function applyNics(sim: Simulator, vm: Vm, draft: Vm, section: XNode): void {
  const { nics, primary } = readNics(section, vm.nics);
  const vapp = sim.world.vapps.get(vm.vappId)!;
  for (const n of nics)
    if (!networkOf(sim.world, vapp, n.network))
      throw errors.badRequest(
        `The network "${n.network}" of NetworkConnection ${n.index} is not a network of the vApp.`,
      );
  draft.nics = nics;
  draft.primaryNicIndex = primary;
  if (vm.status === VmStatus.POWERED_ON && nicShape(vm) !== nicShape(draft))
    throw errors.invalidState(
      `The network connections of VM "${vm.name}" can only change while it is powered off.`,
    );
}

/** The parts of a VM a reconfiguration may change. */
const CHANGEABLE = [
  'name',
  'description',
  'osType',
  'cpuCount',
  'coresPerSocket',
  'memoryMb',
  'disks',
  'nics',
  'primaryNicIndex',
  'extraConfig',
  'guest',
  'productSections',
] as const;

function land(vm: Vm, draft: Vm): void {
  Object.assign(vm, Object.fromEntries(CHANGEABLE.map((k) => [k, draft[k]])));
}

/** The VM as `reconfigureVm` would leave it: each section in the body checked and applied to a draft. */
function reconfiguredDraft(sim: Simulator, vm: Vm, body: XNode): Vm {
  const w = sim.world;
  const draft = draftOf(vm);
  const name = body.attrs.name;
  if (name !== undefined && name !== vm.name) {
    if (!name) throw errors.badRequest('The VM name must not be empty.');
    const vapp = w.vapps.get(vm.vappId)!;
    if (vapp.vmIds.some((id) => id !== vm.id && w.vms.get(id)?.name === name))
      throw errors.duplicateName(`The VM name "${name}" is already used in vApp "${vapp.name}".`);
    draft.name = name;
  }
  const description = childText(body, 'Description');
  if (description !== undefined) draft.description = description;
  const hw = child(body, 'VirtualHardwareSection');
  if (hw) applyExtraConfig(draft, hw);
  const spec = child(body, 'VmSpecSection');
  if (spec) applyVmSpec(w, draft, spec);
  const ncs = child(body, 'NetworkConnectionSection');
  if (ncs) applyNics(sim, vm, draft, ncs);
  const gcs = child(body, 'GuestCustomizationSection');
  if (gcs) draft.guest = readGuest(gcs, draft.guest);
  const ps = childrenNamed(body, 'ProductSection');
  if (ps.length > 0) draft.productSections = readProductSections(ps);
  return draft;
}

/** Registers reconfigureVm and the VM section routes. */
export function vmConfigRoutes(r: Router, sim: Simulator): void {
  const w = sim.world;
  const vmOf = (ctx: Ctx) => w.visibleVm(idParam(ctx), orgOf(ctx));
  const change = (ctx: Ctx, vm: Vm, draft: Vm, what: string) =>
    acceptVmTask(sim, ctx, vm, 'vappUpdateVm', `Updated ${what} of`, () => land(vm, draft));

  r.add('POST', '/api/vApp/vm-{id}/action/reconfigureVm', async (ctx) => {
    const vm = vmOf(ctx);
    requireContentType(ctx, MT.vm);
    const body = parseBody(await ctx.body(), 'Vm', VM);
    const draft = reconfiguredDraft(sim, vm, body);
    return change(ctx, vm, draft, 'configuration');
  });

  r.add('GET', '/api/vApp/vm-{id}/virtualHardwareSection', (ctx) =>
    xml(200, MT.virtualHardwareSection, doc(virtualHardwareSection(vmOf(ctx), ctx.base, true))),
  );
  // The SDK's UpdateExtraConfig writes ExtraConfig here: the section as read, with the keys to set
  // (an empty value removes a key); its items are passed, as sizing goes through VmSpecSection.
  r.add('PUT', '/api/vApp/vm-{id}/virtualHardwareSection', async (ctx) => {
    const vm = vmOf(ctx);
    requireContentType(ctx, MT.virtualHardwareSection);
    const body = parseBody(await ctx.body(), 'VirtualHardwareSection', VIRTUAL_HARDWARE_SECTION);
    const draft = draftOf(vm);
    applyExtraConfig(draft, body);
    return change(ctx, vm, draft, 'virtual hardware');
  });
  r.add('GET', '/api/vApp/vm-{id}/networkConnectionSection', (ctx) =>
    xml(200, MT.networkConnectionSection, doc(networkConnectionSection(vmOf(ctx), ctx.base, true))),
  );
  r.add('PUT', '/api/vApp/vm-{id}/networkConnectionSection', async (ctx) => {
    const vm = vmOf(ctx);
    requireContentType(ctx, MT.networkConnectionSection);
    const body = parseBody(await ctx.body(), 'NetworkConnectionSection', NETWORK_CONNECTION_SECTION);
    const draft = draftOf(vm);
    applyNics(sim, vm, draft, body);
    return change(ctx, vm, draft, 'network connections');
  });
  r.add('GET', '/api/vApp/vm-{id}/guestCustomizationSection', (ctx) =>
    xml(200, MT.guestCustomizationSection, doc(guestCustomizationSection(vmOf(ctx), ctx.base, true))),
  );
  r.add('PUT', '/api/vApp/vm-{id}/guestCustomizationSection', async (ctx) => {
    const vm = vmOf(ctx);
    requireContentType(ctx, MT.guestCustomizationSection);
    const body = parseBody(await ctx.body(), 'GuestCustomizationSection', GUEST_CUSTOMIZATION_SECTION);
    const draft = draftOf(vm);
    draft.guest = readGuest(body, draft.guest);
    return change(ctx, vm, draft, 'guest customization');
  });
  r.add('GET', '/api/vApp/vm-{id}/productSections', (ctx) =>
    xml(200, MT.productSections, doc(productSectionList(vmOf(ctx), ctx.base))),
  );
  r.add('PUT', '/api/vApp/vm-{id}/productSections', async (ctx) => {
    const vm = vmOf(ctx);
    requireContentType(ctx, MT.productSections);
    const body = parseBody(await ctx.body(), 'ProductSectionList', PRODUCT_SECTION_LIST);
    const draft = draftOf(vm);
    draft.productSections = readProductSections(childrenNamed(body, 'ProductSection'));
    return change(ctx, vm, draft, 'product sections');
  });

  vappNetworkConfigRoutes(r, sim);
}

/** The vApp's NetworkConfigSection: read, and replaced unless a VM still uses a removed network. */
function vappNetworkConfigRoutes(r: Router, sim: Simulator): void {
  const w = sim.world;
  r.add('GET', '/api/vApp/vapp-{id}/networkConfigSection', (ctx) => {
    const vapp = w.visible(w.vapps, idParam(ctx), orgOf(ctx));
    return xml(200, MT.networkConfigSection, doc(networkConfigSection(renderCtx(sim, ctx), vapp, true)));
  });
  r.add('PUT', '/api/vApp/vapp-{id}/networkConfigSection', async (ctx) => {
    const vapp = w.visible(w.vapps, idParam(ctx), orgOf(ctx));
    requireContentType(ctx, MT.networkConfigSection);
    const body = parseBody(await ctx.body(), 'NetworkConfigSection', NETWORK_CONFIG_SECTION);
    const nets = readVAppNetworks(w, vapp.vdcId, vapp.orgId, body);
    const inUse = new Set(vapp.vmIds.flatMap((id) => w.vms.get(id)?.nics.map((n) => n.network) ?? []));
    for (const name of inUse)
      if (!nets.some((n) => n.name === name))
        throw errors.invalidState(`The vApp network "${name}" is used by a VM and cannot be removed.`);
    return acceptVappTask(
      sim,
      ctx,
      vapp,
      'vdcUpdateVappNetworkSection',
      'Updated network configuration of',
      () => {
        vapp.networks = nets;
      },
    );
  });
}
