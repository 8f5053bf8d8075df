/**
 * IP Spaces (VCD 10.4.1+): provider-defined address pools that edge gateways allocate from instead
 * of their uplink's ranges. A tenant reserves floating IPs in an IP Space it is assigned to (within
 * its quota); a network service (a load balancer's VIP) may then use one; a released IP goes back.
 */
import { allocate, type IpRange, inRanges } from './ippool.js';

/** What a floating IP reservation is used for. */
export type IpUsageState = 'UNUSED' | 'USED' | 'USED_MANUAL';

/** One reservation of a floating IP by an org. */
export interface IpAllocation {
  id: string;
  orgId: string;
  type: 'FLOATING_IP';
  value: string;
  description: string;
  usageState: IpUsageState;
  /** The service using it (a virtual service), when `usageState` is USED. */
  usedBy?: { id: string; name: string };
  allocationDate: number;
}

/** An IP Space: its ranges, the orgs it is assigned to, their floating IP reservations. */
export interface IpSpace {
  id: string;
  name: string;
  description: string;
  type: 'PUBLIC' | 'SHARED_SERVICES' | 'PRIVATE';
  /** The owning org of a PRIVATE IP Space. */
  ownerOrgId?: string;
  internalScope: string[];
  externalScope: string;
  ranges: IpRange[];
  /** Floating IPs each assigned org may hold (-1: unlimited). */
  floatingIpQuota: number;
  /** Orgs the IP Space is assigned to (a PRIVATE one: its owner only). */
  orgIds: string[];
  allocations: Map<string, IpAllocation>;
}

/** Why a reservation is refused (VCD answers 400 with the reason). */
export type ReserveRefusal =
  | { kind: 'quota'; quota: number; held: number }
  | { kind: 'exhausted' }
  | { kind: 'valueOutside'; value: string }
  | { kind: 'valueTaken'; value: string };

/**
 * The floating IPs an org gets for a reservation of `quantity` (or of exactly `value`): the lowest
 * free addresses of the space's ranges, within the org's quota. Pure: the caller records them.
 */
export function pickFloatingIps(
  space: Pick<IpSpace, 'ranges' | 'floatingIpQuota' | 'allocations'>,
  orgId: string,
  request: { quantity: number; value?: string },
): { values: string[] } | { refused: ReserveRefusal } {
  const all = [...space.allocations.values()];
  const held = all.filter((a) => a.orgId === orgId).length;
  const count = request.value ? 1 : request.quantity;
  if (space.floatingIpQuota >= 0 && held + count > space.floatingIpQuota)
    return { refused: { kind: 'quota', quota: space.floatingIpQuota, held } };
  const taken = new Set(all.map((a) => a.value));
  if (request.value) {
    if (!inRanges(request.value, space.ranges))
      return { refused: { kind: 'valueOutside', value: request.value } };
    if (taken.has(request.value)) return { refused: { kind: 'valueTaken', value: request.value } };
    return { values: [request.value] };
  }
  const values: string[] = [];
  for (let i = 0; i < count; i++) {
    const ip = allocate(space.ranges, taken);
    if (!ip) return { refused: { kind: 'exhausted' } };
    taken.add(ip);
    values.push(ip);
  }
  return { values };
}
