/**
 * How each NIC of a machine's VM gets its address, as pure decisions: the NICs it wants (network,
 * VCD allocation mode, the Cluster API IPAM claim a MANUAL NIC takes its address from), whether
 * every MANUAL address is known yet, and what the guest is told about each NIC.
 *
 * VCD's modes: POOL (VCD takes an address from the network's static pool), DHCP (the guest asks
 * the network's DHCP service), MANUAL (the address is given; here it comes from an IPAM pool
 * through an `IPAddressClaim`, the Cluster API contract's `addressesFromPools`).
 */
import { createHash } from 'node:crypto';

/** VCD's `IpAddressAllocationMode` values a machine may ask for. */
export type IpAllocationMode = 'POOL' | 'DHCP' | 'MANUAL';

/** A Cluster API IPAM pool (a TypedLocalObjectReference in the machine's namespace). */
export interface IpPoolRef {
  apiGroup: string;
  kind: string;
  name: string;
}

/** One `spec.networkInterfaces` entry. */
export interface NetworkInterfaceSpec {
  ipAllocationMode?: IpAllocationMode;
  addressesFromPools?: IpPoolRef[];
}

/** A NIC the VM should have. */
export interface NicIntent {
  /** NetworkConnectionIndex: 0 is the primary NIC. */
  index: number;
  network: string;
  mode: IpAllocationMode;
  /** MANUAL: the pool, and the name of the IPAddressClaim taken from it. */
  pool?: IpPoolRef;
  claimName?: string;
}

/** An address an IPAM provider gave (an IPAddress's spec). */
export interface ClaimedAddress {
  address: string;
  prefix: number;
  gateway?: string;
}

const NAME_LIMIT = 253;

/**
 * The IPAddressClaim name for a machine's NIC: `<vcdMachine>-nic-<index>`, shortened with a hash
 * of the machine's name when that would pass Kubernetes' 253-character limit (stable either way).
 */
export function claimNameFor(vcdMachine: string, index: number): string {
  const suffix = `-nic-${index}`;
  if (vcdMachine.length + suffix.length <= NAME_LIMIT) return `${vcdMachine}${suffix}`;
  const hash = createHash('sha256').update(vcdMachine).digest('hex').slice(0, 10);
  return `${vcdMachine.slice(0, NAME_LIMIT - suffix.length - hash.length - 1)}-${hash}${suffix}`;
}

/**
 * The NICs wanted: one per network (primary first), entry i of `interfaces` saying NIC i's mode
 * (POOL when absent). An error, for a condition, when `interfaces` names a NIC the VM does not
 * have or a MANUAL NIC has no pool (or a pool is named for another mode).
 */
export function nicIntents(
  networks: string[],
  interfaces: NetworkInterfaceSpec[] | undefined,
  vcdMachine: string,
): NicIntent[] | { error: string } {
  const specs = interfaces ?? [];
  if (specs.length > networks.length)
    return {
      error: `networkInterfaces has ${specs.length} entries but the VM has ${networks.length} NICs (its network and extraOvdcNetworks)`,
    };
  const intents: NicIntent[] = [];
  for (const [index, network] of networks.entries()) {
    const spec = specs[index] ?? {};
    const mode = spec.ipAllocationMode ?? 'POOL';
    const pools = spec.addressesFromPools ?? [];
    if (mode === 'MANUAL' && pools.length !== 1)
      return { error: `networkInterfaces[${index}]: MANUAL needs exactly one pool in addressesFromPools` };
    if (mode !== 'MANUAL' && pools.length > 0)
      return { error: `networkInterfaces[${index}]: addressesFromPools is for MANUAL, not ${mode}` };
    const pool = pools[0];
    intents.push(
      pool
        ? { index, network, mode, pool, claimName: claimNameFor(vcdMachine, index) }
        : { index, network, mode },
    );
  }
  return intents;
}

/**
 * The MANUAL NICs whose claims have no address yet (by claim name); empty when the VM can be
 * made with every NIC's address.
 */
export function awaitedClaims(intents: NicIntent[], claimed: ReadonlyMap<string, ClaimedAddress>): string[] {
  return intents.flatMap((n) => (n.claimName && !claimed.has(n.claimName) ? [n.claimName] : []));
}

/** A NIC as VCD reports it on the VM. */
export interface ObservedNic {
  index: number;
  network: string;
  mac?: string;
  ip?: string;
}

/** A network's addressing, as VCD reports it. */
export interface NetworkAddressing {
  prefixLength: number;
  gateway?: string;
  dns?: string[];
}

/** What the guest is told about one NIC (cloud-init network config v2). */
export interface GuestNic {
  /** The guest's interface name, eth<NetworkConnectionIndex>. */
  name: string;
  mac?: string;
  /** Static addressing; absent: DHCP. */
  address?: { ip: string; prefixLength: number; gateway?: string };
  dns?: string[];
  /** Only the primary NIC carries the default route. */
  primary: boolean;
}

/**
 * The guest's view of each wanted NIC. MANUAL: the claimed address (its gateway, else the
 * network's). POOL: the address VCD reports for the NIC, when it has one and the network's prefix
 * is known, else DHCP (as before VCD has allocated it). DHCP: DHCP. Pure.
 */
export function guestNics(
  intents: NicIntent[],
  observed: ObservedNic[],
  claimed: ReadonlyMap<string, ClaimedAddress>,
  networks: ReadonlyMap<string, NetworkAddressing>,
): GuestNic[] {
  return intents.map((intent) => {
    const seen = observed.find((n) => n.index === intent.index);
    const net = networks.get(intent.network);
    const base: GuestNic = {
      name: `eth${intent.index}`,
      primary: intent.index === 0,
      ...(seen?.mac ? { mac: seen.mac.toLowerCase() } : {}),
      ...(net?.dns?.length && intent.mode !== 'DHCP' ? { dns: net.dns } : {}),
    };
    const claim = intent.claimName ? claimed.get(intent.claimName) : undefined;
    const gateway = claim?.gateway ?? net?.gateway;
    if (intent.mode === 'MANUAL' && claim)
      return {
        ...base,
        address: { ip: claim.address, prefixLength: claim.prefix, ...(gateway ? { gateway } : {}) },
      };
    if (intent.mode === 'POOL' && seen?.ip && net)
      return {
        ...base,
        address: {
          ip: seen.ip,
          prefixLength: net.prefixLength,
          ...(net.gateway ? { gateway: net.gateway } : {}),
        },
      };
    const { dns: _dns, ...dhcp } = base;
    return dhcp;
  });
}

/** What the VM's create says of each NIC: its mode, and a MANUAL NIC's claimed address. */
export function addressingOf(
  intents: NicIntent[],
  claimed: ReadonlyMap<string, ClaimedAddress>,
): Array<{ mode: IpAllocationMode; ip?: string }> {
  return intents.map((n) => {
    const ip = n.claimName ? claimed.get(n.claimName)?.address : undefined;
    return ip ? { mode: n.mode, ip } : { mode: n.mode };
  });
}

/** The names of the IPAddressClaims a machine's spec asks for (one per MANUAL NIC). */
export function claimNamesOf(interfaces: NetworkInterfaceSpec[] | undefined, vcdMachine: string): string[] {
  return (interfaces ?? []).flatMap((n, index) =>
    n.ipAllocationMode === 'MANUAL' ? [claimNameFor(vcdMachine, index)] : [],
  );
}
