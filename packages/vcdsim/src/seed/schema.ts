/** The seed file: what the simulated cloud holds when it starts (YAML or the same shape as an object). */

/** An inclusive IPv4 range. */
export interface SeedRange {
  start: string;
  end: string;
}

/** A compute policy, published to VDCs that name it. */
export interface SeedComputePolicy {
  name: string;
  kind: 'sizing' | 'placement';
  description?: string;
  cpuCount?: number;
  coresPerSocket?: number;
  memoryMb?: number;
}

/** An org VDC network with its static IP pool. */
export interface SeedNetwork {
  name: string;
  gateway: string;
  prefixLength: number;
  dns?: string[];
  dnsSuffix?: string;
  staticIpPool: SeedRange[];
  /** DHCP pools of the network's DHCP service (apart from the static pool); none: DHCP NICs get no address. */
  dhcpPool?: SeedRange[];
  /** Name of the VDC's edge gateway this routed network connects to; isolated when absent. */
  edgeGateway?: string;
}

/** An NSX-T edge gateway with one uplink: its own ranges, or IP Spaces it allocates from. */
export interface SeedEdgeGateway {
  name: string;
  uplink: { name?: string; gateway: string; prefixLength: number; ipRanges?: SeedRange[] };
  /** Names of IP Spaces the gateway allocates from (`usingIpSpace`); then `uplink.ipRanges` is left out. */
  ipSpaces?: string[];
  /** The ALB service engine group assigned to this gateway (none: no load balancing). */
  serviceEngineGroup?: { name: string; maxVirtualServices?: number };
}

/** An org VDC. */
export interface SeedVdc {
  name: string;
  description?: string;
  storageProfiles?: { name: string; default?: boolean; limitMb?: number }[];
  /** Names of top-level compute policies published to this VDC. */
  computePolicies?: string[];
  edgeGateways?: SeedEdgeGateway[];
  networks?: SeedNetwork[];
}

/** A vApp template (its single VM's hardware and OS). */
export interface SeedTemplate {
  name: string;
  description?: string;
  osType: string;
  cpuCount: number;
  coresPerSocket?: number;
  memoryMb: number;
  diskMb: number;
}

/** A catalog and its templates. */
export interface SeedCatalog {
  name: string;
  description?: string;
  /** The VDC whose storage holds the templates (default: the org's first VDC). */
  vdc?: string;
  templates: SeedTemplate[];
}

/** An org with its users, VDCs and catalogs. */
export interface SeedOrg {
  name: string;
  fullName?: string;
  users: { name: string; password: string; apiTokens?: string[] }[];
  vdcs: SeedVdc[];
  catalogs?: SeedCatalog[];
  /** Data center groups: each makes the named networks of its VDCs available in all of them. */
  vdcGroups?: SeedVdcGroup[];
}

/** A data center group of the org's VDCs and the networks it stretches over them. */
export interface SeedVdcGroup {
  name: string;
  /** The member VDCs' names. */
  vdcs: string[];
  /** Names of networks of member VDCs that become the group's (offered in every member). */
  networks: string[];
}

/** An IP Space (VCD 10.4.1+) assigned to orgs, with their floating IP quota. */
export interface SeedIpSpace {
  name: string;
  type?: 'PUBLIC' | 'SHARED_SERVICES' | 'PRIVATE';
  /** The CIDRs the IP Space covers. */
  internalScope: string[];
  ranges: SeedRange[];
  /** Floating IPs each org may reserve (default -1, unlimited). */
  floatingIpQuota?: number;
  /** Orgs it is assigned to (a PRIVATE IP Space: exactly its owner). */
  orgs: string[];
}

/** The whole seed document. */
export interface Seed {
  computePolicies?: SeedComputePolicy[];
  ipSpaces?: SeedIpSpace[];
  orgs: SeedOrg[];
}

type Shape =
  | 'string'
  | 'number'
  | 'boolean'
  | { list: Shape }
  | { object: Record<string, Shape>; required?: string[] }
  | { oneOf: string[] };

const range: Shape = { object: { start: 'string', end: 'string' }, required: ['start', 'end'] };

const SHAPE: Shape = {
  object: {
    ipSpaces: {
      list: {
        object: {
          name: 'string',
          type: { oneOf: ['PUBLIC', 'SHARED_SERVICES', 'PRIVATE'] },
          internalScope: { list: 'string' },
          ranges: { list: range },
          floatingIpQuota: 'number',
          orgs: { list: 'string' },
        },
        required: ['name', 'internalScope', 'ranges', 'orgs'],
      },
    },
    computePolicies: {
      list: {
        object: {
          name: 'string',
          kind: { oneOf: ['sizing', 'placement'] },
          description: 'string',
          cpuCount: 'number',
          coresPerSocket: 'number',
          memoryMb: 'number',
        },
        required: ['name', 'kind'],
      },
    },
    orgs: {
      list: {
        required: ['name', 'users', 'vdcs'],
        object: {
          name: 'string',
          fullName: 'string',
          users: {
            list: {
              object: { name: 'string', password: 'string', apiTokens: { list: 'string' } },
              required: ['name', 'password'],
            },
          },
          vdcs: {
            list: {
              required: ['name'],
              object: {
                name: 'string',
                description: 'string',
                storageProfiles: {
                  list: {
                    object: { name: 'string', default: 'boolean', limitMb: 'number' },
                    required: ['name'],
                  },
                },
                computePolicies: { list: 'string' },
                edgeGateways: {
                  list: {
                    required: ['name', 'uplink'],
                    object: {
                      name: 'string',
                      uplink: {
                        object: {
                          name: 'string',
                          gateway: 'string',
                          prefixLength: 'number',
                          ipRanges: { list: range },
                        },
                        required: ['gateway', 'prefixLength'],
                      },
                      ipSpaces: { list: 'string' },
                      serviceEngineGroup: {
                        object: { name: 'string', maxVirtualServices: 'number' },
                        required: ['name'],
                      },
                    },
                  },
                },
                networks: {
                  list: {
                    required: ['name', 'gateway', 'prefixLength', 'staticIpPool'],
                    object: {
                      name: 'string',
                      gateway: 'string',
                      prefixLength: 'number',
                      dns: { list: 'string' },
                      dnsSuffix: 'string',
                      staticIpPool: { list: range },
                      dhcpPool: { list: range },
                      edgeGateway: 'string',
                    },
                  },
                },
              },
            },
          },
          vdcGroups: {
            list: {
              required: ['name', 'vdcs', 'networks'],
              object: { name: 'string', vdcs: { list: 'string' }, networks: { list: 'string' } },
            },
          },
          catalogs: {
            list: {
              required: ['name', 'templates'],
              object: {
                name: 'string',
                description: 'string',
                vdc: 'string',
                templates: {
                  list: {
                    required: ['name', 'osType', 'cpuCount', 'memoryMb', 'diskMb'],
                    object: {
                      name: 'string',
                      description: 'string',
                      osType: 'string',
                      cpuCount: 'number',
                      coresPerSocket: 'number',
                      memoryMb: 'number',
                      diskMb: 'number',
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
  required: ['orgs'],
};

function check(value: unknown, shape: Shape, path: string, problems: string[]): void {
  if (typeof shape === 'string') {
    if (typeof value !== shape) problems.push(`${path}: expected a ${shape}`);
    else if (shape === 'number' && (!Number.isFinite(value) || (value as number) < 0))
      problems.push(`${path}: expected a non-negative number`);
    return;
  }
  if ('oneOf' in shape) {
    if (typeof value !== 'string' || !shape.oneOf.includes(value))
      problems.push(`${path}: expected one of ${shape.oneOf.join(', ')}`);
    return;
  }
  if ('list' in shape) {
    if (!Array.isArray(value)) problems.push(`${path}: expected a list`);
    else for (const [i, v] of value.entries()) check(v, shape.list, `${path}[${i}]`, problems);
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push(`${path}: expected a mapping`);
    return;
  }
  const obj = value as Record<string, unknown>;
  for (const key of shape.required ?? [])
    if (!Object.hasOwn(obj, key) || obj[key] === undefined) problems.push(`${path}.${key}: required`);
  for (const [key, v] of Object.entries(obj)) {
    // Own keys only: a seed key such as `toString` must not find Object.prototype's.
    const sub = Object.hasOwn(shape.object, key) ? shape.object[key] : undefined;
    if (!sub) problems.push(`${path}.${key}: unknown field`);
    else if (v !== undefined) check(v, sub, `${path}.${key}`, problems);
  }
}

/** Checks a parsed seed document's shape; returns every problem found (empty when valid). */
export function seedProblems(value: unknown): string[] {
  const problems: string[] = [];
  check(value, SHAPE, 'seed', problems);
  return problems;
}
