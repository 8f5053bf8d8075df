/** Reads VM sections from request XML into the model, refusing values VCD would refuse (400). */
import type { AllocationMode, GuestCustomization, Nic, ProductSection, Vm, World } from '../model/world.js';
import { errors } from '../server/errors.js';
import { attrBool, child, childBool, childInt, childrenNamed, childText, type XNode } from '../xml/parse.js';
import { applyDiskSection } from './disks.js';
import { newMac } from './network.js';

const MODES: AllocationMode[] = ['POOL', 'DHCP', 'MANUAL', 'NONE'];
const ADAPTERS = ['VMXNET3', 'E1000', 'E1000E', 'VMXNET2', 'PCNet32', 'SRIOVETHERNETCARD'];

/** NICs from a NetworkConnectionSection; keeps the MAC of a NIC whose index already exists. */
export function readNics(section: XNode, existing: Nic[] = []): { nics: Nic[]; primary: number } {
  const nics: Nic[] = [];
  for (const nc of childrenNamed(section, 'NetworkConnection')) {
    const network = nc.attrs.network;
    if (!network) throw errors.badRequest('NetworkConnection needs a network attribute.');
    const index = childInt(nc, 'NetworkConnectionIndex') ?? nics.length;
    if (nics.some((n) => n.index === index))
      throw errors.badRequest(`Duplicate NetworkConnectionIndex ${index}.`);
    const mode = (childText(nc, 'IpAddressAllocationMode') ?? 'POOL') as AllocationMode;
    if (!MODES.includes(mode))
      throw errors.badRequest(`IpAddressAllocationMode "${mode}" is not one of ${MODES.join(', ')}.`);
    const adapter = childText(nc, 'NetworkAdapterType') ?? 'VMXNET3';
    if (!ADAPTERS.includes(adapter))
      throw errors.badRequest(`NetworkAdapterType "${adapter}" is not supported.`);
    const ip = childText(nc, 'IpAddress');
    if (mode === 'MANUAL' && !ip) throw errors.badRequest('MANUAL allocation needs an IpAddress.');
    const old = existing.find((n) => n.index === index && n.network === network);
    nics.push({
      index,
      network,
      ...(mode === 'MANUAL' && ip ? { requestedIp: ip } : {}),
      ...(old?.reservedIp && old.allocationMode === mode ? { reservedIp: old.reservedIp } : {}),
      ...(old?.ipAddress && old.allocationMode === mode ? { ipAddress: old.ipAddress } : {}),
      macAddress: old?.macAddress ?? childText(nc, 'MACAddress') ?? newMac(),
      allocationMode: mode,
      adapterType: adapter,
      connected: childBool(nc, 'IsConnected') ?? true,
      needsCustomization: attrBool(nc, 'needsCustomization', false),
    });
  }
  const primary = childInt(section, 'PrimaryNetworkConnectionIndex') ?? nics[0]?.index ?? 0;
  if (nics.length > 0 && !nics.some((n) => n.index === primary))
    throw errors.badRequest(`PrimaryNetworkConnectionIndex ${primary} names no NetworkConnection.`);
  return { nics, primary };
}

/** Guest customization settings merged over the current ones. */
export function readGuest(section: XNode, current: GuestCustomization): GuestCustomization {
  const script = childText(section, 'CustomizationScript');
  const password = childText(section, 'AdminPassword');
  const computerName = childText(section, 'ComputerName') ?? current.computerName;
  if (!/^[A-Za-z0-9-]{1,63}$/.test(computerName))
    throw errors.badRequest(`ComputerName "${computerName}" must be 1-63 letters, digits or hyphens.`);
  return {
    enabled: childBool(section, 'Enabled') ?? current.enabled,
    changeSid: childBool(section, 'ChangeSid') ?? current.changeSid,
    adminPasswordEnabled: childBool(section, 'AdminPasswordEnabled') ?? current.adminPasswordEnabled,
    adminPasswordAuto: childBool(section, 'AdminPasswordAuto') ?? current.adminPasswordAuto,
    ...(password !== undefined
      ? { adminPassword: password }
      : current.adminPassword
        ? { adminPassword: current.adminPassword }
        : {}),
    resetPasswordRequired: childBool(section, 'ResetPasswordRequired') ?? current.resetPasswordRequired,
    ...(script !== undefined
      ? { customizationScript: script }
      : current.customizationScript
        ? { customizationScript: current.customizationScript }
        : {}),
    computerName,
  };
}

/** ProductSections (the whole list replaces the old one, as VCD does). */
export function readProductSections(sections: XNode[]): ProductSection[] {
  return sections.map((s) => ({
    info: childText(s, 'Info') ?? '',
    properties: childrenNamed(s, 'Property').map((p) => {
      if (!p.attrs.key) throw errors.badRequest('ovf:Property needs an ovf:key.');
      const label = childText(p, 'Label');
      return {
        key: p.attrs.key,
        type: p.attrs.type ?? 'string',
        value: p.attrs.value ?? '',
        userConfigurable: attrBool(p, 'userConfigurable', false),
        ...(label ? { label } : {}),
      };
    }),
  }));
}

/** ExtraConfig entries of a VirtualHardwareSection (a value of "" removes the key, as in vSphere). */
export function applyExtraConfig(vm: Vm, hw: XNode): void {
  for (const e of childrenNamed(hw, 'ExtraConfig')) {
    const key = e.attrs.key;
    if (!key) throw errors.badRequest('vmw:ExtraConfig needs a vmw:key.');
    const value = e.attrs.value ?? '';
    if (value === '') vm.extraConfig.delete(key);
    else vm.extraConfig.set(key, { value, required: attrBool(e, 'required', false) });
  }
}

/** Sizing and disks from a VmSpecSection; disks may grow but never shrink, new ones are added. */
export function applyVmSpec(world: World, vm: Vm, spec: XNode): void {
  const cpus = childInt(spec, 'NumCpus');
  const cores = childInt(spec, 'NumCoresPerSocket');
  const mem = childInt(child(spec, 'MemoryResourceMb'), 'Configured');
  if (cpus === 0 || cores === 0 || mem === 0)
    throw errors.badRequest('CPU, cores and memory must be positive.');
  // vSphere sizes memory in 4 MB steps.
  if (mem !== undefined && mem % 4 !== 0)
    throw errors.badRequest(`Memory ${mem} MB is not a multiple of 4 MB.`);
  if (cpus !== undefined) vm.cpuCount = cpus;
  if (cores !== undefined) vm.coresPerSocket = cores;
  if (mem !== undefined) vm.memoryMb = mem;
  if (vm.cpuCount % vm.coresPerSocket !== 0)
    throw errors.badRequest(
      `NumCpus ${vm.cpuCount} is not a multiple of NumCoresPerSocket ${vm.coresPerSocket}.`,
    );
  const os = childText(spec, 'OsType');
  if (os) vm.osType = os;
  applyDiskSection(world, vm, child(spec, 'DiskSection'));
}
