/** The Vm and VApp elements. */

import type { ComputePolicy, VApp, Vm, World } from '../model/world.js';
import type { Task } from '../tasks/runner.js';
import { el, text } from './build.js';
import { MT, ROOT_NS } from './ns.js';
import { link, path, ref, urn } from './refs.js';
import {
  guestCustomizationSection,
  networkConnectionSection,
  productSections,
  virtualHardwareSection,
  vmSpecSection,
} from './sections.js';
import { tasksInProgress } from './task.js';

/** What renderers need beside the object itself. */
export interface RenderCtx {
  world: World;
  base: string;
  /** Unfinished tasks owned by an object (by owner URN). */
  tasksOf(ownerUrn: string): Task[];
}

function orgOf(r: RenderCtx, orgId: string): { name: string; id: string } {
  return { name: r.world.orgs.get(orgId)?.name ?? '', id: orgId };
}

/** A compute policy reference (href = the CloudAPI policy, id = its URN). */
function policyRef(r: RenderCtx, tag: string, p: ComputePolicy | undefined | '' | 0): string | undefined {
  if (!p) return undefined;
  return ref(tag, r.base, undefined, path.computePolicy(p.id), p.name, urn('vdcComputePolicy', p.id));
}

/** The VM's action links: which power actions are offered depends on whether it is on. */
function vmLinks(base: string, vm: Vm): (string | undefined)[] {
  const p = path.vm(vm.id);
  const on = vm.status === 4;
  return [
    link(
      base,
      on ? 'power:powerOff' : 'power:powerOn',
      undefined,
      `${p}/power/action/${on ? 'powerOff' : 'powerOn'}`,
    ),
    on
      ? link(base, 'power:reboot', undefined, `${p}/power/action/reboot`)
      : link(base, 'deploy', MT.deployVAppParams, `${p}/action/deploy`),
    on ? link(base, 'power:shutdown', undefined, `${p}/power/action/shutdown`) : undefined,
    link(base, 'undeploy', MT.undeployVAppParams, `${p}/action/undeploy`),
    link(base, 'reconfigureVm', MT.vm, `${p}/action/reconfigureVm`, vm.name),
    link(base, 'disk:attach', MT.diskAttachOrDetachParams, `${p}/disk/action/attach`),
    link(base, 'disk:detach', MT.diskAttachOrDetachParams, `${p}/disk/action/detach`),
    link(base, 'up', MT.vApp, path.vapp(vm.vappId)),
    link(base, 'down', MT.metadata, `${p}/metadata`),
    link(base, 'down', MT.productSections, `${p}/productSections/`),
    vm.status === 4 ? undefined : link(base, 'remove', undefined, p),
  ];
}

/** The VM's sizing and placement policies, when it has either. */
function computePolicy(r: RenderCtx, vm: Vm): string | undefined {
  const { world } = r;
  const sizing = vm.sizingPolicyId && world.computePolicies.get(vm.sizingPolicyId);
  const placement = vm.placementPolicyId && world.computePolicies.get(vm.placementPolicyId);
  return sizing || placement
    ? el(
        'ComputePolicy',
        undefined,
        policyRef(r, 'VmPlacementPolicy', placement),
        text('VmPlacementPolicyFinal', placement ? 'true' : undefined),
        policyRef(r, 'VmSizingPolicy', sizing),
        text('VmSizingPolicyFinal', sizing ? 'false' : undefined),
      )
    : undefined;
}

/** A Vm element, in the schema's child order. */
export function vmElement(r: RenderCtx, vm: Vm, root: boolean): string {
  const { world, base } = r;
  const vapp = world.vapps.get(vm.vappId)!;
  const p = path.vm(vm.id);
  const org = orgOf(r, vapp.orgId);
  const storage = world.storageProfiles.get(vm.storageProfileId);
  return el(
    'Vm',
    {
      ...(root ? ROOT_NS : {}),
      needsCustomization: String(vm.needsCustomization),
      nestedHypervisorEnabled: 'false',
      deployed: String(vm.deployed),
      status: vm.status,
      name: vm.name,
      id: urn('vm', vm.id),
      href: `${base}${p}`,
      type: MT.vm,
    },
    ...vmLinks(base, vm),
    text('Description', vm.description),
    tasksInProgress(r.tasksOf(urn('vm', vm.id)), base, org.name, org.id),
    virtualHardwareSection(vm, base),
    el(
      'ovf:OperatingSystemSection',
      {
        'ovf:id': 94,
        'vcloud:type': 'application/vnd.vmware.vcloud.operatingSystemSection+xml',
        'vmw:osType': vm.osType,
      },
      text('ovf:Info', 'Specifies the operating system installed'),
      text('ovf:Description', vm.osType),
    ),
    networkConnectionSection(vm, base),
    guestCustomizationSection(vm, base),
    ...productSections(vm),
    el(
      'RuntimeInfoSection',
      { 'vcloud:type': MT.runtimeInfo },
      text('ovf:Info', 'Specifies Runtime info'),
      vm.toolsRunning ? el('VMWareTools', { version: '12352' }) : undefined,
    ),
    vmSpecSection(world, vm, base),
    text('DateCreated', new Date(vm.createdAt).toISOString()),
    text('VAppScopedLocalId', vm.name),
    el(
      'VmCapabilities',
      { href: `${base}${p}/vmCapabilities/`, type: MT.vmCapabilities },
      text('MemoryHotAddEnabled', false),
      text('CpuHotAddEnabled', false),
    ),
    storage
      ? ref('StorageProfile', base, MT.storageProfile, path.storageProfile(storage.id), storage.name)
      : undefined,
    computePolicy(r, vm),
  );
}

/** A VApp element with its NetworkConfigSection and Children. */
export function vappElement(r: RenderCtx, vapp: VApp): string {
  const { world, base } = r;
  const p = path.vapp(vapp.id);
  const org = orgOf(r, vapp.orgId);
  const on = vapp.status === 4;
  return el(
    'VApp',
    {
      ...ROOT_NS,
      ovfDescriptorUploaded: 'true',
      deployed: String(vapp.deployed),
      status: vapp.status,
      name: vapp.name,
      id: urn('vapp', vapp.id),
      href: `${base}${p}`,
      type: MT.vApp,
    },
    link(
      base,
      on ? 'power:powerOff' : 'power:powerOn',
      undefined,
      `${p}/power/action/${on ? 'powerOff' : 'powerOn'}`,
    ),
    link(base, 'recompose', MT.recomposeVAppParams, `${p}/action/recomposeVApp`),
    link(base, 'undeploy', MT.undeployVAppParams, `${p}/action/undeploy`),
    link(base, 'up', MT.vdc, path.vdc(vapp.vdcId)),
    link(base, 'down', MT.metadata, `${p}/metadata`),
    vapp.deployed ? undefined : link(base, 'remove', undefined, p),
    text('Description', vapp.description),
    tasksInProgress(r.tasksOf(urn('vapp', vapp.id)), base, org.name, org.id),
    el(
      'LeaseSettingsSection',
      { href: `${base}${p}/leaseSettingsSection/`, type: MT.leaseSettings, 'ovf:required': 'false' },
      text('ovf:Info', 'Lease settings section'),
      text('DeploymentLeaseInSeconds', 0),
      text('StorageLeaseInSeconds', 0),
    ),
    el(
      'ovf:StartupSection',
      { 'vcloud:type': MT.startupSection, 'vcloud:href': `${base}${p}/startupSection/` },
      text('ovf:Info', 'VApp startup section'),
      ...vapp.vmIds.map((id, i) =>
        el('ovf:Item', {
          'ovf:id': world.vms.get(id)?.name,
          'ovf:order': i,
          'ovf:startAction': 'powerOn',
          'ovf:stopAction': 'powerOff',
        }),
      ),
    ),
    networkConfigSection(r, vapp, false),
    text('DateCreated', new Date(vapp.createdAt).toISOString()),
    el(
      'Owner',
      { type: 'application/vnd.vmware.vcloud.owner+xml' },
      el('User', { name: vapp.ownerName, type: 'application/vnd.vmware.admin.user+xml' }),
    ),
    text('InMaintenanceMode', false),
    vapp.vmIds.length > 0
      ? el(
          'Children',
          undefined,
          ...vapp.vmIds
            .map((id) => world.vms.get(id))
            .filter((v): v is Vm => !!v)
            .map((v) => vmElement(r, v, false)),
        )
      : undefined,
  );
}

/** A vApp's NetworkConfigSection (its vApp networks and their parents). */
export function networkConfigSection(r: RenderCtx, vapp: VApp, root: boolean): string {
  const p = `${path.vapp(vapp.id)}/networkConfigSection/`;
  return el(
    'NetworkConfigSection',
    {
      ...(root ? ROOT_NS : {}),
      href: `${r.base}${p}`,
      type: MT.networkConfigSection,
      'ovf:required': 'false',
    },
    text('ovf:Info', 'The configuration parameters for logical networks'),
    ...vapp.networks.map((n) => {
      const parent = n.parentNetworkId ? r.world.networks.get(n.parentNetworkId) : undefined;
      return el(
        'NetworkConfig',
        { networkName: n.name },
        text('Description', n.description),
        el(
          'Configuration',
          undefined,
          parent
            ? ref('ParentNetwork', r.base, undefined, path.network(parent.id), parent.name, parent.id)
            : undefined,
          text('FenceMode', n.fenceMode),
          text('RetainNetInfoAcrossDeployments', false),
        ),
        text('IsDeployed', vapp.deployed),
      );
    }),
    link(r.base, 'edit', MT.networkConfigSection, p),
  );
}
