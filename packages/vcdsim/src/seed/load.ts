/** Builds the simulator's world from a seed document (YAML text, a file, or an object). */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { type IpRange, inRanges, rangeProblem } from '../model/ippool.js';
import { World } from '../model/world.js';
import { addIpSpaces, assignIpSpaceOrgs, gatewayIpSpaces } from './ip-spaces.js';
import { type Seed, type SeedOrg, type SeedRange, type SeedVdc, seedProblems } from './schema.js';
import { addVdcGroups } from './vdc-groups.js';

/** A seed that does not describe a valid cloud; `problems` lists every reason. */
export class SeedError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid seed:\n  ${problems.join('\n  ')}`);
    this.name = 'SeedError';
  }
}

/** Parses YAML seed text and checks its shape. */
export function parseSeed(text: string): Seed {
  let value: unknown;
  try {
    value = parse(text);
  } catch (e) {
    throw new SeedError([`not valid YAML: ${(e as Error).message}`]);
  }
  const problems = seedProblems(value);
  if (problems.length > 0) throw new SeedError(problems);
  return value as Seed;
}

/** Reads and parses a seed file. */
export const readSeedFile = (path: string): Seed => parseSeed(readFileSync(path, 'utf8'));

/** Seed ranges as IP ranges, noting every range that does not parse. */
export function toRanges(rs: SeedRange[], where: string, problems: string[]): IpRange[] {
  const ranges = rs.map((r) => ({ startAddress: r.start, endAddress: r.end }));
  for (const r of ranges) {
    const p = rangeProblem(r);
    if (p) problems.push(`${where}: ${p}`);
  }
  return ranges;
}

/** Builds a world from a seed, checking references between its parts. */
export function buildWorld(seed: Seed): World {
  const shapeProblems = seedProblems(seed);
  if (shapeProblems.length > 0) throw new SeedError(shapeProblems);
  const problems: string[] = [];
  const world = new World();
  const policyByName = new Map<string, string>();
  for (const p of seed.computePolicies ?? []) {
    if (policyByName.has(p.name)) problems.push(`computePolicies: duplicate name ${p.name}`);
    const id = randomUUID();
    policyByName.set(p.name, id);
    world.computePolicies.set(id, {
      id,
      name: p.name,
      description: p.description ?? '',
      kind: p.kind,
      ...(p.cpuCount !== undefined ? { cpuCount: p.cpuCount } : {}),
      ...(p.coresPerSocket !== undefined ? { coresPerSocket: p.coresPerSocket } : {}),
      ...(p.memoryMb !== undefined ? { memoryMb: p.memoryMb } : {}),
      vdcIds: [],
    });
  }
  addIpSpaces(world, seed.ipSpaces ?? [], problems);
  const orgNames = new Set<string>();
  for (const o of seed.orgs) {
    if (orgNames.has(o.name)) problems.push(`orgs: duplicate name ${o.name}`);
    orgNames.add(o.name);
    addOrg(world, o, policyByName, problems);
  }
  assignIpSpaceOrgs(world, seed.ipSpaces ?? [], problems);
  if (problems.length > 0) throw new SeedError(problems);
  return world;
}

function addOrg(world: World, o: SeedOrg, policyByName: Map<string, string>, problems: string[]): void {
  const orgId = randomUUID();
  world.orgs.set(orgId, { id: orgId, name: o.name, fullName: o.fullName ?? o.name });
  for (const u of o.users)
    world.users.push({
      id: randomUUID(),
      name: u.name,
      orgId,
      password: u.password,
      apiTokens: u.apiTokens ?? [],
    });
  const vdcIdByName = new Map<string, string>();
  for (const v of o.vdcs)
    vdcIdByName.set(v.name, addVdc(world, orgId, `orgs.${o.name}.vdcs.${v.name}`, v, policyByName, problems));
  addVdcGroups(world, orgId, o, vdcIdByName, problems);
  for (const c of o.catalogs ?? []) {
    const vdcId = c.vdc ? vdcIdByName.get(c.vdc) : vdcIdByName.values().next().value;
    if (!vdcId) {
      problems.push(`orgs.${o.name}.catalogs.${c.name}: no VDC ${c.vdc ?? '(the org has none)'}`);
      continue;
    }
    const vdc = world.vdcs.get(vdcId)!;
    const catalogId = randomUUID();
    const templateIds: string[] = [];
    for (const t of c.templates) {
      const id = randomUUID();
      templateIds.push(id);
      world.templates.set(id, {
        id,
        name: t.name,
        description: t.description ?? '',
        catalogId,
        catalogItemId: randomUUID(),
        orgId,
        vdcId,
        storageProfileId: vdc.storageProfileIds[0]!,
        createdAt: Date.UTC(2026, 0, 1),
        vm: {
          id: randomUUID(),
          name: t.name,
          osType: t.osType,
          cpuCount: t.cpuCount,
          coresPerSocket: t.coresPerSocket ?? 1,
          memoryMb: t.memoryMb,
          diskMb: t.diskMb,
        },
      });
    }
    world.catalogs.set(catalogId, {
      id: catalogId,
      name: c.name,
      orgId,
      description: c.description ?? '',
      templateIds,
    });
  }
}

function addVdc(
  world: World,
  orgId: string,
  where: string,
  v: SeedVdc,
  policyByName: Map<string, string>,
  problems: string[],
): string {
  const vdcId = randomUUID();
  const storageProfileIds = addStorageProfiles(world, vdcId, v);
  // Every VDC has its own "System Default" sizing policy, as VCD creates one.
  const defaultPolicyId = randomUUID();
  world.computePolicies.set(defaultPolicyId, {
    id: defaultPolicyId,
    name: 'System Default',
    description: 'Default sizing policy',
    kind: 'sizing',
    vdcIds: [vdcId],
  });
  const computePolicyIds: string[] = [defaultPolicyId];
  for (const name of v.computePolicies ?? []) {
    const id = policyByName.get(name);
    if (!id) problems.push(`${where}.computePolicies: no compute policy named ${name}`);
    else {
      computePolicyIds.push(id);
      world.computePolicies.get(id)!.vdcIds.push(vdcId);
    }
  }
  world.vdcs.set(vdcId, {
    id: vdcId,
    name: v.name,
    orgId,
    description: v.description ?? '',
    storageProfileIds,
    computePolicyIds,
    defaultComputePolicyId: defaultPolicyId,
  });
  const gatewayIdByName = addEdgeGateways(world, orgId, vdcId, where, v.edgeGateways ?? [], problems);
  addNetworks(world, orgId, vdcId, where, v.networks ?? [], gatewayIdByName, problems);
  return vdcId;
}

/** The VDC's storage profiles; a VDC seeded without any gets one unlimited default ("*"). */
function addStorageProfiles(world: World, vdcId: string, v: SeedVdc): string[] {
  const profiles = v.storageProfiles ?? [{ name: '*', default: true }];
  return profiles.map((p, i) => {
    const id = randomUUID();
    world.storageProfiles.set(id, {
      id,
      name: p.name,
      vdcId,
      limitMb: p.limitMb ?? 0,
      isDefault: p.default ?? i === 0,
    });
    return id;
  });
}

/** Adds the VDC's edge gateways (with their load-balancer assignments); returns their ids by name. */
function addEdgeGateways(
  world: World,
  orgId: string,
  vdcId: string,
  where: string,
  gateways: NonNullable<SeedVdc['edgeGateways']>,
  problems: string[],
): Map<string, string> {
  const gatewayIdByName = new Map<string, string>();
  for (const g of gateways) {
    const ranges = toRanges(g.uplink.ipRanges ?? [], `${where}.edgeGateways.${g.name}`, problems);
    const ipSpaceIds = gatewayIpSpaces(world, g, `${where}.edgeGateways.${g.name}`, problems);
    const id = randomUUID();
    gatewayIdByName.set(g.name, id);
    const primaryIp = ranges[0]?.startAddress ?? g.uplink.gateway;
    world.edgeGateways.set(id, {
      id,
      name: g.name,
      orgId,
      vdcId,
      description: '',
      uplink: {
        id: randomUUID(),
        name: g.uplink.name ?? `${g.name}-uplink`,
        gateway: g.uplink.gateway,
        prefixLength: g.uplink.prefixLength,
        ipRanges: ranges,
        primaryIp,
      },
      ...(ipSpaceIds ? { ipSpaceIds } : {}),
      used: new Map([[primaryIp, { category: 'PRIMARY_IP', ownerId: id, ownerName: g.name }]]),
    });
    if (g.serviceEngineGroup) {
      const aid = randomUUID();
      world.segAssignments.set(aid, {
        id: aid,
        segId: randomUUID(),
        segName: g.serviceEngineGroup.name,
        gatewayId: id,
        maxVirtualServices: g.serviceEngineGroup.maxVirtualServices ?? 10,
        minVirtualServices: 0,
      });
    }
  }
  return gatewayIdByName;
}

/** Adds the VDC's org networks: routed through a named edge gateway, otherwise isolated. */
function addNetworks(
  world: World,
  orgId: string,
  vdcId: string,
  where: string,
  networks: NonNullable<SeedVdc['networks']>,
  gatewayIdByName: Map<string, string>,
  problems: string[],
): void {
  for (const n of networks) {
    const ranges = toRanges(n.staticIpPool, `${where}.networks.${n.name}`, problems);
    if (ranges.length > 0 && !rangeProblem(ranges[0]!) && inRanges(n.gateway, ranges))
      problems.push(`${where}.networks.${n.name}: the gateway ${n.gateway} lies inside the static pool`);
    const dhcpRanges = toRanges(n.dhcpPool ?? [], `${where}.networks.${n.name}.dhcpPool`, problems);
    if (dhcpRanges.some((r) => inRanges(r.startAddress, ranges) || inRanges(r.endAddress, ranges)))
      problems.push(`${where}.networks.${n.name}: the DHCP pool overlaps the static pool`);
    const edgeGatewayId = n.edgeGateway ? gatewayIdByName.get(n.edgeGateway) : undefined;
    if (n.edgeGateway && !edgeGatewayId)
      problems.push(`${where}.networks.${n.name}: no edge gateway ${n.edgeGateway}`);
    const id = randomUUID();
    world.networks.set(id, {
      id,
      name: n.name,
      orgId,
      vdcId,
      description: '',
      gateway: n.gateway,
      prefixLength: n.prefixLength,
      dns1: n.dns?.[0] ?? '',
      dns2: n.dns?.[1] ?? '',
      dnsSuffix: n.dnsSuffix ?? '',
      ipRanges: ranges,
      dhcpRanges,
      fenceMode: edgeGatewayId ? 'natRouted' : 'isolated',
      ...(edgeGatewayId ? { edgeGatewayId } : {}),
      allocated: new Map(),
    });
  }
}
