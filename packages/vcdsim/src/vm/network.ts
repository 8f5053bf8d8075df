/** Addresses for VM NICs: reservation from the org VDC network's static pool, and release. */

import type { Faults } from '../faults/faults.js';
import { allocate, inRanges, ipToInt } from '../model/ippool.js';
import type { Network, Nic, VApp, Vm, World } from '../model/world.js';
import { VcdError } from '../server/errors.js';

/**
 * The org VDC network behind a vApp network name. As in VCD, a NIC connects to a network of its
 * vApp only: an org VDC network the vApp does not bridge (its NetworkConfigSection lacks it) is
 * unknown to the VM, so undefined.
 */
export function networkOf(world: World, vapp: VApp, name: string): Network | undefined {
  const vn = vapp.networks.find((n) => n.name === name);
  if (!vn) return undefined;
  if (vn.parentNetworkId) return world.networks.get(vn.parentNetworkId);
  return world.vdcNetwork(vapp.vdcId, name);
}

function inSubnet(ip: string, net: Network): boolean {
  const a = ipToInt(ip);
  const g = ipToInt(net.gateway);
  if (a === undefined || g === undefined) return false;
  const mask = net.prefixLength === 0 ? 0 : (~0 << (32 - net.prefixLength)) >>> 0;
  return (a & mask) >>> 0 === (g & mask) >>> 0;
}

/** Reserves an address for every POOL or MANUAL NIC; all or nothing (a failure releases what it took). */
export function reserveAddresses(world: World, faults: Faults, vm: Vm): void {
  const vapp = world.vapps.get(vm.vappId)!;
  const taken: Nic[] = [];
  try {
    for (const nic of vm.nics) {
      if (nic.reservedIp || (nic.allocationMode !== 'POOL' && nic.allocationMode !== 'MANUAL')) continue;
      const net = networkOf(world, vapp, nic.network);
      if (!net)
        throw new VcdError(
          400,
          'INVALID_REFERENCE',
          `Network "${nic.network}" is not available to the vApp.`,
        );
      let ip: string | undefined;
      if (nic.allocationMode === 'MANUAL') {
        ip = nic.requestedIp;
        if (!ip || !inSubnet(ip, net))
          throw new VcdError(
            400,
            'BAD_REQUEST',
            `IP address "${ip ?? ''}" is not in the subnet of network "${net.name}".`,
          );
        if (net.allocated.has(ip))
          throw new VcdError(400, 'BAD_REQUEST', `IP address ${ip} is already in use.`);
      } else {
        ip = faults.isPoolExhausted(net.name)
          ? undefined
          : allocate(net.ipRanges, new Set(net.allocated.keys()));
        if (!ip)
          throw new VcdError(
            400,
            'BAD_REQUEST',
            `No IP addresses are available in the static IP pool of network "${net.name}".`,
          );
      }
      net.allocated.set(ip, vm.id);
      nic.reservedIp = ip;
      taken.push(nic);
    }
  } catch (e) {
    for (const nic of taken) releaseNic(world, vapp, nic);
    throw e;
  }
}

/**
 * The guest's DHCP leases at boot: each connected DHCP NIC without an address gets one from its
 * network's DHCP pool (the lease it held, if the network still keeps it for the VM); a network
 * without a DHCP service, or with its pool used up, leaves the NIC without an address, as a guest
 * whose DHCP request goes unanswered.
 */
export function leaseDhcp(world: World, vm: Vm): void {
  const vapp = world.vapps.get(vm.vappId);
  if (!vapp) return;
  for (const nic of vm.nics) {
    if (nic.allocationMode !== 'DHCP' || !nic.connected || nic.ipAddress) continue;
    const net = networkOf(world, vapp, nic.network);
    if (!net || net.dhcpRanges.length === 0) continue;
    const held = [...net.allocated].find(([ip, holder]) => holder === vm.id && inRanges(ip, net.dhcpRanges));
    const ip = held?.[0] ?? allocate(net.dhcpRanges, new Set(net.allocated.keys()));
    if (!ip) continue;
    net.allocated.set(ip, vm.id);
    nic.ipAddress = ip;
  }
}

function releaseNic(world: World, vapp: VApp, nic: Nic): void {
  const held = nic.reservedIp ?? (nic.allocationMode === 'DHCP' ? nic.ipAddress : undefined);
  if (held) networkOf(world, vapp, nic.network)?.allocated.delete(held);
  nic.reservedIp = undefined;
  nic.ipAddress = undefined;
}

/** Returns every address the VM holds to its pool. */
export function releaseAddresses(world: World, vm: Vm): void {
  const vapp = world.vapps.get(vm.vappId);
  for (const nic of vm.nics) {
    if (vapp) releaseNic(world, vapp, nic);
    else {
      nic.reservedIp = undefined;
      nic.ipAddress = undefined;
    }
  }
  // Belt and braces: nothing may keep an address for a VM that gave its addresses back.
  for (const net of world.networks.values())
    for (const [ip, holder] of net.allocated) if (holder === vm.id) net.allocated.delete(ip);
}

/** A VMware-style MAC address (OUI 00:50:56). */
export function newMac(): string {
  const b = Array.from({ length: 3 }, () => Math.floor(Math.random() * 256));
  b[0] = b[0]! & 0x3f;
  return ['00', '50', '56', ...b.map((x) => x.toString(16).padStart(2, '0'))].join(':');
}

export { inRanges };
