/**
 * Which addresses an edge gateway may put a network service on: its uplink's ranges, or (a gateway
 * using IP Spaces) the floating IPs its org has reserved in them, which the service then marks used.
 */
import { inRanges } from '../model/ippool.js';
import type { EdgeGateway, IpAllocation, World } from '../model/world.js';

/** The org's floating IP reservation of `ip` in one of the gateway's IP Spaces. */
export function floatingIpOf(w: World, g: EdgeGateway, ip: string): IpAllocation | undefined {
  for (const id of g.ipSpaceIds ?? []) {
    for (const a of w.ipSpaces.get(id)?.allocations.values() ?? [])
      if (a.value === ip && a.orgId === g.orgId) return a;
  }
  return undefined;
}

/** Whether `ip` is the gateway's to use: in its uplink ranges, or reserved from its IP Spaces. */
export function gatewayMayUse(w: World, g: EdgeGateway, ip: string): boolean {
  return g.ipSpaceIds ? floatingIpOf(w, g, ip) !== undefined : inRanges(ip, g.uplink.ipRanges);
}

/** Marks a reserved floating IP used by (or, with no user, released from) a network service. */
export function markFloatingIp(
  w: World,
  g: EdgeGateway,
  ip: string,
  usedBy?: { id: string; name: string },
): void {
  const a = floatingIpOf(w, g, ip);
  if (!a) return;
  if (usedBy) {
    a.usageState = 'USED';
    a.usedBy = usedBy;
  } else {
    a.usageState = 'UNUSED';
    delete a.usedBy;
  }
}
