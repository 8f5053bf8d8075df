/**
 * The sections of a Vm, each in the element order of VCD's schema. rasd child elements are in the
 * CIM schema's (alphabetical) order; NetworkConnection children in the vcloud schema's order.
 */
import { adapterCode, rasdBusType } from '../model/disk-adapters.js';
import { shownAddress } from '../model/ippool.js';
import type { Vm, World } from '../model/world.js';
import { el, text } from './build.js';
import { MT, NS, ROOT_NS } from './ns.js';
import { link, path, urn } from './refs.js';

const vmw = (required: boolean) => ({ 'ovf:required': String(required) });

/**
 * The prefix of the vcloud namespace inside a VirtualHardwareSection, declared on the section.
 * VCD writes a generated `nsN` prefix there, and the SDK's UpdateExtraConfig re-sends the items it
 * read under a root that declares only `ns2`..`ns5` for that namespace: with any other prefix
 * (even a declared `vcloud:`) the items it sends back would carry an unbound prefix.
 */
const HW = 'ns4';

function cpuItem(vm: Vm, base: string): string {
  return el(
    'ovf:Item',
    undefined,
    text('rasd:AllocationUnits', 'hertz * 10^6'),
    text('rasd:Description', 'Number of Virtual CPUs'),
    text('rasd:ElementName', `${vm.cpuCount} virtual CPU(s)`),
    text('rasd:InstanceID', 4),
    text('rasd:Reservation', 0),
    text('rasd:ResourceType', 3),
    text('rasd:VirtualQuantity', vm.cpuCount),
    text('rasd:Weight', 0),
    text('vmw:CoresPerSocket', vm.coresPerSocket, vmw(false)),
    link(
      base,
      'edit',
      'application/vnd.vmware.vcloud.rasdItem+xml',
      `${path.vm(vm.id)}/virtualHardwareSection/cpu`,
    ),
  );
}

function memoryItem(vm: Vm, base: string): string {
  return el(
    'ovf:Item',
    undefined,
    text('rasd:AllocationUnits', 'byte * 2^20'),
    text('rasd:Description', 'Memory Size'),
    text('rasd:ElementName', `${vm.memoryMb} MB of memory`),
    text('rasd:InstanceID', 5),
    text('rasd:Reservation', 0),
    text('rasd:ResourceType', 4),
    text('rasd:VirtualQuantity', vm.memoryMb),
    text('rasd:Weight', 0),
    link(
      base,
      'edit',
      'application/vnd.vmware.vcloud.rasdItem+xml',
      `${path.vm(vm.id)}/virtualHardwareSection/memory`,
    ),
  );
}

/** A disk controller's rasd kind and name, from a disk's bus sub type. */
function controllerName(subType: string, bus: number): string {
  const kind = rasdBusType(subType);
  const family = kind === 5 ? 'IDE' : kind === 6 ? 'SCSI' : subType.includes('nvme') ? 'NVMe' : 'SATA';
  return `${family} Controller ${bus}`;
}

/**
 * The disk controllers (one per sub type and bus the disks use; the first keeps InstanceID 2) and
 * the disks, each under its controller.
 */
function diskItems(vm: Vm, base: string): string[] {
  const keys = [...new Set(vm.disks.map((d) => `${d.adapterType}/${d.busNumber}`))];
  const instanceOf = (key: string) => (keys.indexOf(key) === 0 ? 2 : 1000 + keys.indexOf(key));
  const controllers = keys.map((key) => {
    const [subType = 'lsilogic', bus = '0'] = key.split('/');
    return el(
      'ovf:Item',
      undefined,
      text('rasd:Address', bus),
      text('rasd:Description', controllerName(subType, Number(bus)).replace(/ \d+$/, '')),
      text('rasd:ElementName', controllerName(subType, Number(bus))),
      text('rasd:InstanceID', instanceOf(key)),
      text('rasd:ResourceSubType', subType),
      text('rasd:ResourceType', rasdBusType(subType)),
    );
  });
  const disks = vm.disks.map((d, i) =>
    el(
      'ovf:Item',
      undefined,
      text('rasd:AddressOnParent', d.unitNumber),
      text('rasd:Description', 'Hard disk'),
      text('rasd:ElementName', `Hard disk ${i + 1}`),
      el('rasd:HostResource', {
        [`${HW}:capacity`]: d.sizeMb,
        [`${HW}:busSubType`]: d.adapterType,
        [`${HW}:busType`]: rasdBusType(d.adapterType),
        [`${HW}:storageProfileHref`]: `${base}${path.storageProfile(d.storageProfileId)}`,
      }),
      text('rasd:InstanceID', d.diskId),
      text('rasd:Parent', instanceOf(`${d.adapterType}/${d.busNumber}`)),
      text('rasd:ResourceType', 17),
      text('rasd:VirtualQuantity', d.sizeMb * 1024 * 1024),
      text('rasd:VirtualQuantityUnits', 'byte'),
    ),
  );
  return [...controllers, ...disks];
}

function nicItems(vm: Vm): string[] {
  return vm.nics.map((n) =>
    el(
      'ovf:Item',
      undefined,
      text('rasd:Address', n.macAddress),
      text('rasd:AddressOnParent', n.index),
      text('rasd:AutomaticAllocation', n.connected),
      text('rasd:Connection', n.network, {
        [`${HW}:ipAddressingMode`]: n.allocationMode,
        [`${HW}:ipAddress`]: shownAddress(n),
        [`${HW}:primaryNetworkConnection`]: String(n.index === vm.primaryNicIndex),
      }),
      text('rasd:Description', `${n.adapterType} ethernet adapter on "${n.network}"`),
      text('rasd:ElementName', `Network adapter ${n.index}`),
      text('rasd:InstanceID', n.index + 1),
      text('rasd:ResourceSubType', n.adapterType),
      text('rasd:ResourceType', 10),
    ),
  );
}

/** `ovf:VirtualHardwareSection`: System, Items, then `vmw:ExtraConfig` (VMX keys incl. guestinfo.*). */
export function virtualHardwareSection(vm: Vm, base: string, root = false): string {
  const p = `${path.vm(vm.id)}/virtualHardwareSection/`;
  return el(
    'ovf:VirtualHardwareSection',
    {
      ...(root ? ROOT_NS : {}),
      [`xmlns:${HW}`]: NS.vcloud,
      'ovf:transport': '',
      [`${HW}:type`]: MT.virtualHardwareSection,
      [`${HW}:href`]: `${base}${p}`,
    },
    text('ovf:Info', 'Virtual hardware requirements'),
    el(
      'ovf:System',
      undefined,
      text('vssd:ElementName', 'Virtual Hardware Family'),
      text('vssd:InstanceID', 0),
      text('vssd:VirtualSystemIdentifier', vm.name),
      text('vssd:VirtualSystemType', 'vmx-19'),
    ),
    ...nicItems(vm),
    ...diskItems(vm, base),
    cpuItem(vm, base),
    memoryItem(vm, base),
    ...[...vm.extraConfig].map(([key, v]) =>
      el('vmw:ExtraConfig', { 'ovf:required': String(v.required), 'vmw:key': key, 'vmw:value': v.value }),
    ),
    link(base, 'edit', MT.virtualHardwareSection, p),
  );
}

/** `NetworkConnectionSection` with each NetworkConnection's children in schema order. */
export function networkConnectionSection(vm: Vm, base: string, root = false): string {
  const p = `${path.vm(vm.id)}/networkConnectionSection/`;
  return el(
    'NetworkConnectionSection',
    {
      ...(root ? ROOT_NS : {}),
      href: `${base}${p}`,
      type: MT.networkConnectionSection,
      'ovf:required': 'false',
    },
    text('ovf:Info', 'Specifies the available VM network connections'),
    text('PrimaryNetworkConnectionIndex', vm.primaryNicIndex),
    ...vm.nics.map((n) =>
      el(
        'NetworkConnection',
        { needsCustomization: String(n.needsCustomization), network: n.network },
        text('NetworkConnectionIndex', n.index),
        text('IpAddress', shownAddress(n)),
        text('IpType', shownAddress(n) ? 'IPV4' : undefined),
        text('IsConnected', n.connected),
        text('MACAddress', n.macAddress),
        text('IpAddressAllocationMode', n.allocationMode),
        text('SecondaryIpAddressAllocationMode', 'NONE'),
        text('NetworkAdapterType', n.adapterType),
      ),
    ),
    link(base, 'edit', MT.networkConnectionSection, p),
  );
}

/** `GuestCustomizationSection` in schema order. */
export function guestCustomizationSection(vm: Vm, base: string, root = false): string {
  const g = vm.guest;
  const p = `${path.vm(vm.id)}/guestCustomizationSection/`;
  return el(
    'GuestCustomizationSection',
    {
      ...(root ? ROOT_NS : {}),
      href: `${base}${p}`,
      type: MT.guestCustomizationSection,
      'ovf:required': 'false',
    },
    text('ovf:Info', 'Specifies Guest OS Customization Settings'),
    text('Enabled', g.enabled),
    text('ChangeSid', g.changeSid),
    text('VirtualMachineId', vm.id),
    text('JoinDomainEnabled', false),
    text('UseOrgSettings', false),
    text('AdminPasswordEnabled', g.adminPasswordEnabled),
    text('AdminPasswordAuto', g.adminPasswordAuto),
    text('AdminPassword', g.adminPassword),
    text('AdminAutoLogonEnabled', false),
    text('AdminAutoLogonCount', 0),
    text('ResetPasswordRequired', g.resetPasswordRequired),
    text('CustomizationScript', g.customizationScript),
    text('ComputerName', g.computerName),
    link(base, 'edit', MT.guestCustomizationSection, p),
  );
}

/** The `ovf:ProductSection` elements of a VM. */
export function productSections(vm: Vm): string[] {
  return vm.productSections.map((s) =>
    el(
      'ovf:ProductSection',
      { 'ovf:required': 'false' },
      text('ovf:Info', s.info),
      ...s.properties.map((pr) =>
        el(
          'ovf:Property',
          {
            'ovf:key': pr.key,
            'ovf:type': pr.type,
            'ovf:userConfigurable': String(pr.userConfigurable),
            'ovf:value': pr.value,
          },
          text('ovf:Label', pr.label),
        ),
      ),
    ),
  );
}

/** `ProductSectionList` (GET/PUT `…/productSections`). */
export function productSectionList(vm: Vm, base: string): string {
  const p = `${path.vm(vm.id)}/productSections/`;
  return el(
    'ProductSectionList',
    { ...ROOT_NS, href: `${base}${p}`, type: MT.productSections },
    link(base, 'edit', MT.productSections, p),
    ...productSections(vm),
  );
}

/** What one `DiskSettings` of a VmSpecSection says; `disk` is the named disk's reference, if any. */
interface DiskSettingsOf {
  diskId: number;
  sizeMb: number;
  unitNumber: number;
  busNumber: number;
  storageProfileId: string;
  /** The DiskSettings AdapterType code (a named disk's is VCD's default, 5). */
  adapter: string | number;
  disk?: { id: string; name: string };
}

/** One `DiskSettings`: a named disk overrides the VM's default storage, the VM's own disks do not. */
function diskSettings(world: World, base: string, d: DiskSettingsOf): string {
  return el(
    'DiskSettings',
    undefined,
    text('DiskId', d.diskId),
    text('SizeMb', d.sizeMb),
    text('UnitNumber', d.unitNumber),
    text('BusNumber', d.busNumber),
    text('AdapterType', d.adapter),
    text('ThinProvisioned', true),
    d.disk
      ? el('Disk', {
          href: `${base}${path.disk(d.disk.id)}`,
          id: urn('disk', d.disk.id),
          name: d.disk.name,
          type: MT.disk,
        })
      : undefined,
    el('StorageProfile', {
      href: `${base}${path.storageProfile(d.storageProfileId)}`,
      name: world.storageProfiles.get(d.storageProfileId)?.name,
      type: MT.storageProfile,
    }),
    text('overrideVmDefault', d.disk !== undefined),
  );
}

/** The VM's own disks and then the named disks attached to it (those with a `Disk` reference). */
function diskSection(world: World, vm: Vm, base: string): string {
  const own = vm.disks.map((d) => diskSettings(world, base, { ...d, adapter: adapterCode(d.adapterType) }));
  const named = world.disksOf(vm.id).map((d, i) =>
    diskSettings(world, base, {
      diskId: 3000 + i,
      sizeMb: d.sizeMb,
      unitNumber: vm.disks.length + i,
      busNumber: 0,
      storageProfileId: d.storageProfileId,
      adapter: 5,
      disk: d,
    }),
  );
  return el('DiskSection', undefined, ...own, ...named);
}

/** `VmSpecSection`: the sizing VCD reports, disks included. */
export function vmSpecSection(world: World, vm: Vm, base: string): string {
  return el(
    'VmSpecSection',
    { Modified: 'false' },
    text('ovf:Info', 'The configuration parameters for logical VM'),
    text('OsType', vm.osType),
    text('NumCpus', vm.cpuCount),
    text('NumCoresPerSocket', vm.coresPerSocket),
    el('CpuResourceMhz', undefined, text('Configured', 0)),
    el('MemoryResourceMb', undefined, text('Configured', vm.memoryMb)),
    diskSection(world, vm, base),
    text('HardwareVersion', 'vmx-19', {
      href: `${base}/api/vdc/hwv/vmx-19`,
      type: 'application/vnd.vmware.vcloud.virtualHardwareVersion+xml',
    }),
    text('VmToolsVersion', vm.toolsRunning ? '12352' : '0'),
    text('VirtualCpuType', 'VM64'),
  );
}
