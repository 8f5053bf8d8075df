/**
 * A new VM from a compose/recompose SourcedItem: the template VM's hardware, then the sizing
 * policy, then explicit VmSpecSection values; NICs, guest customization, storage and placement
 * from the item. References to other orgs' objects are VCD's 403; bad values its 400.
 */
import { randomUUID } from 'node:crypto';
import { type ComputePolicy, type VApp, type Vm, VmStatus, type World } from '../model/world.js';
import { errors } from '../server/errors.js';
import { child, childBool, childrenNamed, childText, type XNode } from '../xml/parse.js';
import { idFrom } from '../xml/refs.js';
import { networkOf } from './network.js';
import { applyExtraConfig, applyVmSpec, readGuest, readNics, readProductSections } from './read.js';

function policyRef(
  world: World,
  vapp: VApp,
  node: XNode | undefined,
  kind: ComputePolicy['kind'],
): ComputePolicy | undefined {
  if (!node) return undefined;
  const id =
    idFrom(node.attrs.id, 'urn:vcloud:vdcComputePolicy:') ??
    idFrom(node.attrs.href, 'urn:vcloud:vdcComputePolicy:');
  const policy = id ? world.computePolicies.get(id) : undefined;
  if (!policy?.vdcIds.some((v) => world.vdcs.get(v)?.orgId === vapp.orgId)) throw errors.forbidden();
  if (policy.kind !== kind)
    throw errors.badRequest(
      `Compute policy "${policy.name}" is a ${policy.kind} policy, not a ${kind} policy.`,
    );
  if (!policy.vdcIds.includes(vapp.vdcId))
    throw errors.invalidReference(`Compute policy "${policy.name}" is not published to the vApp's VDC.`);
  return policy;
}

/** The SourcedItem's Source and the template it names; another org's template is VCD's 403. */
function sourceTemplate(world: World, vapp: VApp, item: XNode) {
  const src = child(item, 'Source');
  const href = src?.attrs.href ?? '';
  const templateVmId = idFrom(href, '/vAppTemplate/vm-') ?? idFrom(src?.attrs.id, 'urn:vcloud:vm:');
  const byTemplate = idFrom(href, '/vAppTemplate/vappTemplate-');
  let template = templateVmId
    ? world.templateVm(templateVmId)
    : byTemplate
      ? world.templates.get(byTemplate)
      : undefined;
  if (!src) throw errors.badRequest('SourcedItem needs a Source.');
  if (!template || template.orgId !== vapp.orgId) template = undefined;
  if (!template) throw errors.forbidden();
  return { src, template };
}

/** The VM's storage profile: the item's, which must be in the vApp's VDC, else the VDC's default. */
function storageProfileOf(world: World, vapp: VApp, item: XNode): string {
  const node = child(item, 'StorageProfile');
  const vdc = world.vdcs.get(vapp.vdcId)!;
  if (!node) return world.defaultStorageProfileId(vdc);
  const id =
    idFrom(node.attrs.href, '/vdcStorageProfile/') ?? idFrom(node.attrs.id, 'urn:vcloud:vdcstorageProfile:');
  return world.vdcStorageProfileId(vdc, id, (sp) =>
    sp
      ? errors.invalidReference(`Storage profile "${sp.name}" is not in the vApp's VDC.`)
      : errors.forbidden(),
  );
}

/** Applies the item's InstantiationParams sections, in the order VCD reads them. */
function applyInstantiationParams(world: World, vapp: VApp, vm: Vm, inst: XNode | undefined): void {
  const ncs = child(inst, 'NetworkConnectionSection');
  if (ncs) {
    const { nics, primary } = readNics(ncs);
    for (const n of nics)
      if (!networkOf(world, vapp, n.network))
        throw errors.badRequest(
          `The network "${n.network}" of NetworkConnection ${n.index} is not a network of the vApp.`,
        );
    vm.nics = nics;
    vm.primaryNicIndex = primary;
  }
  const gcs = child(inst, 'GuestCustomizationSection');
  if (gcs) vm.guest = readGuest(gcs, vm.guest);
  const spec = child(inst, 'VmSpecSection');
  if (spec) applyVmSpec(world, vm, spec);
  const hw = child(inst, 'VirtualHardwareSection');
  if (hw) applyExtraConfig(vm, hw);
  const ps = childrenNamed(inst, 'ProductSection');
  if (ps.length > 0) vm.productSections = readProductSections(ps);
}

/** Builds the VM described by a SourcedItem (status UNRESOLVED, not yet in the world). */
export function vmFromSourcedItem(world: World, vapp: VApp, item: XNode, now: number): Vm {
  const { src, template } = sourceTemplate(world, vapp, item);
  const general = child(item, 'VmGeneralParams');
  // VmGeneralParams/Name, else the Source's name (how the SDK's AddNewVM names a VM), else the template VM's.
  const name = childText(general, 'Name') ?? (src.attrs.name || undefined) ?? template.vm.name;
  if (!name || name.length > 128) throw errors.badRequest('The VM name must be 1-128 characters.');
  if (vapp.vmIds.some((id) => world.vms.get(id)?.name === name))
    throw errors.duplicateName(`The VM name "${name}" is already used in vApp "${vapp.name}".`);
  const storageProfileId = storageProfileOf(world, vapp, item);
  const policy = child(item, 'ComputePolicy');
  const sizing = policyRef(world, vapp, child(policy, 'VmSizingPolicy'), 'sizing');
  const placement = policyRef(world, vapp, child(policy, 'VmPlacementPolicy'), 'placement');
  const t = template.vm;
  const id = randomUUID();
  const vm: Vm = {
    id,
    name,
    description: childText(general, 'Description') ?? '',
    vappId: vapp.id,
    status: VmStatus.UNRESOLVED,
    deployed: false,
    osType: t.osType,
    cpuCount: sizing?.cpuCount ?? t.cpuCount,
    coresPerSocket: sizing?.coresPerSocket ?? t.coresPerSocket,
    memoryMb: sizing?.memoryMb ?? t.memoryMb,
    disks: [
      {
        id: randomUUID(),
        diskId: 2000,
        sizeMb: t.diskMb,
        busNumber: 0,
        unitNumber: 0,
        adapterType: 'lsilogic',
        storageProfileId,
      },
    ],
    nics: [],
    primaryNicIndex: 0,
    extraConfig: new Map(),
    guest: {
      enabled: false,
      changeSid: false,
      adminPasswordEnabled: true,
      adminPasswordAuto: true,
      resetPasswordRequired: false,
      computerName: name.replace(/[^A-Za-z0-9-]/g, '-').slice(0, 63) || 'vm',
    },
    productSections: [],
    metadata: new Map(),
    ...(sizing ? { sizingPolicyId: sizing.id } : {}),
    ...(placement ? { placementPolicyId: placement.id } : {}),
    storageProfileId,
    templateId: template.id,
    needsCustomization: childBool(general, 'NeedsCustomization') ?? true,
    toolsRunning: false,
    serving: false,
    createdAt: now,
  };
  applyInstantiationParams(world, vapp, vm, child(item, 'InstantiationParams'));
  return vm;
}
