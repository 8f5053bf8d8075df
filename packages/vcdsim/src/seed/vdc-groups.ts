/**
 * Data center groups from the seed: each names member VDCs of its org and networks of theirs that
 * it stretches over all of them (as a VDC group's network is offered in every participating VDC).
 */
import { randomUUID } from 'node:crypto';
import type { World } from '../model/world.js';
import type { SeedOrg } from './schema.js';

/** Makes the org's groups' networks the groups'; what names no VDC or network is a problem. */
export function addVdcGroups(
  world: World,
  orgId: string,
  o: SeedOrg,
  vdcIdByName: Map<string, string>,
  problems: string[],
): void {
  for (const g of o.vdcGroups ?? []) {
    const where = `orgs.${o.name}.vdcGroups.${g.name}`;
    const vdcIds = g.vdcs.flatMap((name) => {
      const id = vdcIdByName.get(name);
      if (!id) problems.push(`${where}.vdcs: no VDC ${name}`);
      return id ? [id] : [];
    });
    const group = { id: randomUUID(), name: g.name, vdcIds };
    for (const name of g.networks) {
      const net = [...world.networks.values()].find(
        (n) => n.orgId === orgId && n.name === name && vdcIds.includes(n.vdcId),
      );
      if (!net) problems.push(`${where}.networks: no network ${name} in the group's VDCs`);
      else if (net.group) problems.push(`${where}.networks: ${name} is already group ${net.group.name}'s`);
      else net.group = group;
    }
  }
}
