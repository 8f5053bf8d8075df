/** The seed's IP Spaces: made before the orgs, assigned to them after, named by edge gateways. */
import { randomUUID } from 'node:crypto';
import type { World } from '../model/world.js';
import { toRanges } from './load.js';
import type { SeedEdgeGateway, SeedIpSpace } from './schema.js';

/** The first IP Space of this name (the seed refuses a second one). */
const ipSpaceByName = (world: World, name: string) =>
  [...world.ipSpaces.values()].find((x) => x.name === name);

/** Adds the IP Spaces (their orgs are assigned by {@link assignIpSpaceOrgs} once orgs exist). */
export function addIpSpaces(world: World, spaces: SeedIpSpace[], problems: string[]): void {
  for (const s of spaces) {
    if (ipSpaceByName(world, s.name)) problems.push(`ipSpaces: duplicate name ${s.name}`);
    const id = randomUUID();
    world.ipSpaces.set(id, {
      id,
      name: s.name,
      description: '',
      type: s.type ?? 'PUBLIC',
      internalScope: s.internalScope,
      externalScope: '0.0.0.0/0',
      ranges: toRanges(s.ranges, `ipSpaces.${s.name}`, problems),
      floatingIpQuota: s.floatingIpQuota ?? -1,
      orgIds: [],
      allocations: new Map(),
    });
  }
}

/** Assigns each IP Space to the orgs it names; a PRIVATE one is owned by its single org. */
export function assignIpSpaceOrgs(world: World, spaces: SeedIpSpace[], problems: string[]): void {
  for (const s of spaces) {
    const space = ipSpaceByName(world, s.name)!;
    for (const name of s.orgs) {
      const org = world.orgByName(name);
      if (!org) problems.push(`ipSpaces.${s.name}: no org ${name}`);
      else space.orgIds.push(org.id);
    }
    if (space.type === 'PRIVATE') {
      if (space.orgIds.length !== 1)
        problems.push(`ipSpaces.${s.name}: a PRIVATE IP Space has exactly one org`);
      else space.ownerOrgId = space.orgIds[0]!;
    }
  }
}

/** The ids of the IP Spaces a gateway names, or undefined when it allocates from its uplink. */
export function gatewayIpSpaces(
  world: World,
  g: SeedEdgeGateway,
  where: string,
  problems: string[],
): string[] | undefined {
  if (!g.ipSpaces) {
    if (!g.uplink.ipRanges?.length)
      problems.push(`${where}: an uplink needs ipRanges unless ipSpaces are named`);
    return undefined;
  }
  if (g.uplink.ipRanges?.length) problems.push(`${where}: a gateway using IP Spaces has no uplink ipRanges`);
  return g.ipSpaces.flatMap((name) => {
    const space = ipSpaceByName(world, name);
    if (!space) problems.push(`${where}: no IP Space ${name}`);
    return space ? [space.id] : [];
  });
}
