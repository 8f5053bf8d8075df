/** The JSON forms of IP Spaces, their floating IP allocations and suggestions, with VCD's field names. */
import { inRanges, poolSize } from '../model/ippool.js';
import type { IpAllocation, IpSpace, World } from '../model/world.js';
import { urn } from '../xml/refs.js';
import { entityRef } from './envelope.js';
import { orgRef } from './json.js';

const pct = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10000) / 100 : 0);

/** An IP Space (`/cloudapi/1.0.0/ipSpaces/{id}`), with its floating IP utilization. */
export function ipSpaceJson(w: World, s: IpSpace) {
  const total = poolSize(s.ranges);
  const all = [...s.allocations.values()];
  const used = all.filter((a) => a.usageState !== 'UNUSED').length;
  return {
    id: urn('ipSpace', s.id),
    name: s.name,
    description: s.description,
    type: s.type,
    orgRef: s.ownerOrgId ? orgRef(w, s.ownerOrgId) : null,
    utilization: {
      floatingIPs: {
        totalCount: String(total),
        allocatedCount: String(all.length),
        usedCount: String(used),
        unusedCount: String(all.length - used),
        allocatedPercentage: pct(all.length, total),
        usedPercentage: pct(used, total),
      },
      ipPrefixes: { totalCount: '0', allocatedCount: '0', usedCount: '0', unusedCount: '0' },
    },
    ipSpacePrefixes: [],
    ipSpaceRanges: {
      ipRanges: s.ranges.map((r, i) => ({
        id: `${s.id}-${i}`,
        startIpAddress: r.startAddress,
        endIpAddress: r.endAddress,
        totalIpCount: String(poolSize([r])),
        allocatedIpCount: String(all.filter((a) => inRanges(a.value, [r])).length),
        allocatedIpPercentage: 0,
      })),
      defaultFloatingIpQuota: s.floatingIpQuota,
    },
    ipSpaceInternalScope: s.internalScope,
    ipSpaceExternalScope: s.externalScope,
    routeAdvertisementEnabled: false,
    defaultGatewayServiceConfig: {
      enableDefaultFirewallRuleCreation: false,
      enableDefaultNoSnatRuleCreation: false,
      enableDefaultSnatRuleCreation: false,
    },
    status: 'REALIZED',
  };
}

/** A floating IP allocation (`…/ipSpaces/{id}/allocations/{allocationId}`). */
export function allocationJson(w: World, a: IpAllocation) {
  return {
    id: urn('ipSpaceIpAllocation', a.id),
    description: a.description,
    orgRef: orgRef(w, a.orgId),
    type: a.type,
    usageCategories: a.usageState === 'USED' ? ['LOAD_BALANCER'] : [],
    usageState: a.usageState,
    value: a.value,
    usedByRef: a.usedBy ? entityRef(a.usedBy.name, a.usedBy.id) : null,
    allocationDate: new Date(a.allocationDate).toISOString(),
  };
}
