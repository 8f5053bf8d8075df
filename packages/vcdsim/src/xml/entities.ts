/** Org, VDC, catalog, vApp template and network elements. */
import {
  availableIn,
  type Catalog,
  type Network,
  type Org,
  type VAppTemplate,
  type Vdc,
  type World,
} from '../model/world.js';
import { el, text } from './build.js';
import { MT, ROOT_NS } from './ns.js';
import { link, path, ref, urn } from './refs.js';

/** `OrgList`: the orgs the caller may see (its own). */
export function orgList(base: string, orgs: Org[]): string {
  return el(
    'OrgList',
    { ...ROOT_NS, href: `${base}/api/org/`, type: MT.orgList },
    ...orgs.map((o) => ref('Org', base, MT.org, path.org(o.id), o.name)),
  );
}

/** `Org`: links down to its VDCs, catalogs and networks. */
export function orgElement(world: World, base: string, org: Org): string {
  const vdcs = [...world.vdcs.values()].filter((v) => v.orgId === org.id);
  const cats = [...world.catalogs.values()].filter((c) => c.orgId === org.id);
  const nets = [...world.networks.values()].filter((n) => n.orgId === org.id);
  return el(
    'Org',
    { ...ROOT_NS, name: org.name, id: urn('org', org.id), href: `${base}${path.org(org.id)}`, type: MT.org },
    ...vdcs.map((v) => link(base, 'down', MT.vdc, path.vdc(v.id), v.name)),
    ...cats.map((c) => link(base, 'down', MT.catalog, path.catalog(c.id), c.name)),
    ...nets.map((n) => link(base, 'down', MT.network, path.network(n.id), n.name)),
    link(base, 'down', MT.metadata, `${path.org(org.id)}/metadata`),
    text('Description', ''),
    text('FullName', org.fullName),
  );
}

/** The VDC's capacity: the simulator does not meter CPU or memory, so every figure is 0. */
const computeCapacity = (): string =>
  el(
    'ComputeCapacity',
    undefined,
    el(
      'Cpu',
      undefined,
      text('Units', 'MHz'),
      text('Allocated', 0),
      text('Limit', 0),
      text('Reserved', 0),
      text('Used', 0),
    ),
    el(
      'Memory',
      undefined,
      text('Units', 'MB'),
      text('Allocated', 0),
      text('Limit', 0),
      text('Reserved', 0),
      text('Used', 0),
    ),
  );

/** The VDC's vApps and vApp templates. */
function resourceEntities(world: World, base: string, vdc: Vdc): string {
  const vapps = [...world.vapps.values()].filter((a) => a.vdcId === vdc.id);
  return el(
    'ResourceEntities',
    undefined,
    ...vapps.map((a) => ref('ResourceEntity', base, MT.vApp, path.vapp(a.id), a.name, urn('vapp', a.id))),
    ...[...world.templates.values()]
      .filter((t) => t.vdcId === vdc.id)
      .map((t) =>
        ref('ResourceEntity', base, MT.vAppTemplate, path.template(t.id), t.name, urn('vappTemplate', t.id)),
      ),
  );
}

/** References to the VDC's storage profiles. */
function vdcStorageProfiles(world: World, base: string, vdc: Vdc): string {
  return el(
    'VdcStorageProfiles',
    undefined,
    ...vdc.storageProfileIds.map((id) => {
      const sp = world.storageProfiles.get(id)!;
      return ref(
        'VdcStorageProfile',
        base,
        MT.storageProfile,
        path.storageProfile(id),
        sp.name,
        urn('vdcstorageProfile', id),
      );
    }),
  );
}

/** `Vdc`: resource entities, available networks, storage profiles. */
export function vdcElement(world: World, base: string, vdc: Vdc): string {
  const p = path.vdc(vdc.id);
  const nets = [...world.networks.values()].filter((n) => availableIn(n, vdc.id));
  return el(
    'Vdc',
    { ...ROOT_NS, status: 1, name: vdc.name, id: urn('vdc', vdc.id), href: `${base}${p}`, type: MT.vdc },
    link(base, 'up', MT.org, path.org(vdc.orgId)),
    link(base, 'add', MT.composeVAppParams, `${p}/action/composeVApp`),
    link(base, 'add', MT.diskCreateParams, `${p}/disk`),
    link(base, 'down', MT.metadata, `${p}/metadata`),
    link(base, 'down', MT.vmAffinityRules, `${p}/vmAffinityRules`),
    link(base, 'add', MT.vmAffinityRule, `${p}/vmAffinityRules`),
    text('Description', vdc.description),
    text('AllocationModel', 'Flex'),
    computeCapacity(),
    resourceEntities(world, base, vdc),
    el(
      'AvailableNetworks',
      undefined,
      ...nets.map((n) => ref('Network', base, MT.network, path.network(n.id), n.name, urn('network', n.id))),
    ),
    el(
      'Capabilities',
      undefined,
      el('SupportedHardwareVersions', undefined, text('SupportedHardwareVersion', 'vmx-19')),
    ),
    text('NicQuota', 0),
    text('NetworkQuota', 0),
    text('UsedNetworkCount', nets.length),
    text('VmQuota', 0),
    text('IsEnabled', true),
    vdcStorageProfiles(world, base, vdc),
    ref(
      'DefaultComputePolicy',
      base,
      undefined,
      path.computePolicy(vdc.defaultComputePolicyId),
      'System Default',
      urn('vdcComputePolicy', vdc.defaultComputePolicyId),
    ),
    text('VCpuInMhz2', 1000),
  );
}

/** `Catalog` with its items. */
export function catalogElement(world: World, base: string, c: Catalog): string {
  return el(
    'Catalog',
    {
      ...ROOT_NS,
      name: c.name,
      id: urn('catalog', c.id),
      href: `${base}${path.catalog(c.id)}`,
      type: MT.catalog,
    },
    link(base, 'up', MT.org, path.org(c.orgId)),
    link(base, 'down', MT.metadata, `${path.catalog(c.id)}/metadata`),
    text('Description', c.description),
    el(
      'CatalogItems',
      undefined,
      ...c.templateIds.map((id) => {
        const t = world.templates.get(id)!;
        return ref(
          'CatalogItem',
          base,
          MT.catalogItem,
          path.catalogItem(t.catalogItemId),
          t.name,
          t.catalogItemId,
        );
      }),
    ),
    text('IsPublished', false),
    text('DateCreated', new Date(Date.UTC(2026, 0, 1)).toISOString()),
    text('VersionNumber', 1),
  );
}

/** `CatalogItem` pointing at its vApp template. */
export function catalogItemElement(base: string, t: VAppTemplate): string {
  return el(
    'CatalogItem',
    {
      ...ROOT_NS,
      name: t.name,
      id: urn('catalogitem', t.catalogItemId),
      href: `${base}${path.catalogItem(t.catalogItemId)}`,
      type: MT.catalogItem,
    },
    link(base, 'up', MT.catalog, path.catalog(t.catalogId)),
    text('Description', t.description),
    ref('Entity', base, MT.vAppTemplate, path.template(t.id), t.name),
    text('DateCreated', new Date(t.createdAt).toISOString()),
    text('VersionNumber', 1),
  );
}

function templateVmElement(world: World, base: string, t: VAppTemplate, root: boolean): string {
  const vm = t.vm;
  const sp = world.storageProfiles.get(t.storageProfileId);
  return el(
    'Vm',
    {
      ...(root ? ROOT_NS : {}),
      goldMaster: 'false',
      status: 8,
      name: vm.name,
      id: urn('vm', vm.id),
      href: `${base}${path.templateVm(vm.id)}`,
      type: MT.vm,
    },
    link(base, 'up', MT.vAppTemplate, path.template(t.id)),
    text('Description', ''),
    el(
      'VmSpecSection',
      { Modified: 'false' },
      text('ovf:Info', 'The configuration parameters for logical VM'),
      text('OsType', vm.osType),
      text('NumCpus', vm.cpuCount),
      text('NumCoresPerSocket', vm.coresPerSocket),
      el('MemoryResourceMb', undefined, text('Configured', vm.memoryMb)),
      el(
        'DiskSection',
        undefined,
        el(
          'DiskSettings',
          undefined,
          text('DiskId', 2000),
          text('SizeMb', vm.diskMb),
          text('UnitNumber', 0),
          text('BusNumber', 0),
          text('AdapterType', 5),
        ),
      ),
    ),
    text('DateCreated', new Date(t.createdAt).toISOString()),
    text('VAppScopedLocalId', vm.name),
    sp ? ref('StorageProfile', base, MT.storageProfile, path.storageProfile(sp.id), sp.name) : undefined,
  );
}

/** `VAppTemplate` with its one VM in `Children`. */
export function templateElement(world: World, base: string, t: VAppTemplate): string {
  return el(
    'VAppTemplate',
    {
      ...ROOT_NS,
      goldMaster: 'false',
      ovfDescriptorUploaded: 'true',
      status: 8,
      name: t.name,
      id: urn('vappTemplate', t.id),
      href: `${base}${path.template(t.id)}`,
      type: MT.vAppTemplate,
    },
    link(base, 'up', MT.vdc, path.vdc(t.vdcId)),
    link(base, 'down', MT.metadata, `${path.template(t.id)}/metadata`),
    text('Description', t.description),
    el('Owner', { type: 'application/vnd.vmware.vcloud.owner+xml' }),
    el('Children', undefined, templateVmElement(world, base, t, false)),
    text('DateCreated', new Date(t.createdAt).toISOString()),
  );
}

/** A template VM served as its own document. */
export const templateVmDocument = (world: World, base: string, t: VAppTemplate): string =>
  templateVmElement(world, base, t, true);

/** An org VDC network (`OrgVdcNetwork`) with its IpScope and static pool. */
export function networkElement(world: World, base: string, n: Network): string {
  const gw = n.edgeGatewayId ? world.edgeGateways.get(n.edgeGatewayId) : undefined;
  const mask = n.prefixLength === 0 ? 0 : (~0 << (32 - n.prefixLength)) >>> 0;
  const netmask = [mask >>> 24, (mask >>> 16) & 255, (mask >>> 8) & 255, mask & 255].join('.');
  return el(
    'OrgVdcNetwork',
    {
      ...ROOT_NS,
      status: 1,
      name: n.name,
      id: urn('network', n.id),
      href: `${base}${path.network(n.id)}`,
      type: MT.orgVdcNetwork,
    },
    link(base, 'up', MT.vdc, path.vdc(n.vdcId)),
    link(base, 'down', MT.metadata, `${path.network(n.id)}/metadata`),
    text('Description', n.description),
    el(
      'Configuration',
      undefined,
      el(
        'IpScopes',
        undefined,
        el(
          'IpScope',
          undefined,
          text('IsInherited', false),
          text('Gateway', n.gateway),
          text('Netmask', netmask),
          text('SubnetPrefixLength', n.prefixLength),
          text('Dns1', n.dns1 || undefined),
          text('Dns2', n.dns2 || undefined),
          text('DnsSuffix', n.dnsSuffix || undefined),
          text('IsEnabled', true),
          el(
            'IpRanges',
            undefined,
            ...n.ipRanges.map((r) =>
              el(
                'IpRange',
                undefined,
                text('StartAddress', r.startAddress),
                text('EndAddress', r.endAddress),
              ),
            ),
          ),
        ),
      ),
      text('FenceMode', n.fenceMode),
      text('RetainNetInfoAcrossDeployments', false),
    ),
    gw
      ? ref('EdgeGateway', base, undefined, `/cloudapi/1.0.0/edgeGateways/${urn('gateway', gw.id)}`, gw.name)
      : undefined,
    text('IsShared', false),
  );
}
