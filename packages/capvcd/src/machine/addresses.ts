/**
 * Addresses from Cluster API IPAM for a machine's MANUAL NICs: one IPAddressClaim per NIC,
 * controlled by the VCDMachine (so it goes with it, and its events bring the machine back), and
 * the IPAddress an IPAM provider answers with. Nothing here waits: a claim without an address
 * yet is reported, and the claim's update (a watched, owned kind) reconciles the machine again.
 */
import { apiVersionOf, type Client, isAlreadyExists, setControllerReference } from '@capstan/runtime';
import { type IPAddressClaim, IPAddressClaimType, IPAddressType } from '../api/ipam.js';
import { CLUSTER_NAME_LABEL } from '../api/keys.js';
import { type MachineAddress, type VCDMachine, VCDMachineType } from '../api/types.js';
import {
  awaitedClaims,
  type ClaimedAddress,
  claimNamesOf,
  type NicIntent,
  nicIntents,
  type ObservedNic,
} from '../decide/nics.js';
import { getOrUndefined, NotReady } from '../scope.js';

/** The claim a MANUAL NIC wants, controlled by the VCDMachine (the contract's ownership). */
function claimFor(vcdMachine: VCDMachine, clusterName: string, nic: NicIntent): IPAddressClaim {
  const claim: IPAddressClaim = {
    apiVersion: apiVersionOf(IPAddressClaimType),
    kind: IPAddressClaimType.kind,
    metadata: {
      name: nic.claimName as string,
      namespace: vcdMachine.metadata.namespace as string,
      labels: { [CLUSTER_NAME_LABEL]: clusterName },
    },
    spec: { clusterName, poolRef: nic.pool as NonNullable<NicIntent['pool']> },
  };
  return setControllerReference(VCDMachineType, vcdMachine, claim);
}

/**
 * Makes sure each MANUAL NIC's claim exists and answers the addresses given so far, by claim
 * name. @throws NotReady when a claim of that name is another's or asks another pool.
 */
export async function claimAddresses(
  client: Client,
  vcdMachine: VCDMachine,
  clusterName: string,
  nics: NicIntent[],
): Promise<Map<string, ClaimedAddress>> {
  const namespace = vcdMachine.metadata.namespace as string;
  const claimed = new Map<string, ClaimedAddress>();
  for (const nic of nics) {
    if (!nic.claimName || !nic.pool) continue;
    const name = nic.claimName;
    let claim = await getOrUndefined(() => client.get(IPAddressClaimType, { namespace, name }));
    if (!claim) {
      try {
        claim = await client.create(IPAddressClaimType, claimFor(vcdMachine, clusterName, nic));
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        continue; // made meanwhile (the cache had not seen it): its event brings us back
      }
    }
    const ours = claim.metadata.ownerReferences?.some((r) => r.uid === vcdMachine.metadata.uid);
    const pool = claim.spec.poolRef;
    if (!ours || pool.name !== nic.pool.name || pool.kind !== nic.pool.kind)
      throw new NotReady(
        'IPAddressClaimConflict',
        `IPAddressClaim ${name} exists but is not this machine's claim on ${nic.pool.kind} ${nic.pool.name}`,
      );
    const addressName = claim.status?.addressRef?.name;
    if (!addressName) continue;
    const address = await getOrUndefined(() => client.get(IPAddressType, { namespace, name: addressName }));
    if (address?.spec.address && address.spec.prefix !== undefined)
      claimed.set(name, {
        address: address.spec.address,
        prefix: address.spec.prefix,
        ...(address.spec.gateway ? { gateway: address.spec.gateway } : {}),
      });
  }
  return claimed;
}

/** A machine's NICs, and the IPAM addresses of its MANUAL ones. */
export interface AddressedNics {
  nics: NicIntent[];
  claimed: Map<string, ClaimedAddress>;
}

/**
 * The machine's NICs with every MANUAL NIC's address. @throws NotReady for networkInterfaces the
 * VM cannot honour, and while a claim has no address yet (its update brings the machine back).
 */
export async function addressedNics(
  client: Client,
  vcdMachine: VCDMachine,
  clusterName: string,
  networks: string[],
): Promise<AddressedNics> {
  const nics = nicIntents(networks, vcdMachine.spec.networkInterfaces, vcdMachine.metadata.name as string);
  if ('error' in nics) throw new NotReady('InvalidNetworkInterfaces', nics.error);
  if (!nics.some((n) => n.claimName)) return { nics, claimed: new Map() };
  const claimed = await claimAddresses(client, vcdMachine, clusterName, nics);
  const awaited = awaitedClaims(nics, claimed);
  if (awaited.length > 0)
    throw new NotReady('WaitingForIPAddress', `no address yet for IPAddressClaim ${awaited.join(', ')}`);
  return { nics, claimed };
}

/** Deletes the machine's claims (its VM is gone): their addresses go back to their pools. */
export async function releaseClaims(client: Client, vcdMachine: VCDMachine): Promise<void> {
  const namespace = vcdMachine.metadata.namespace as string;
  const names = claimNamesOf(vcdMachine.spec.networkInterfaces, vcdMachine.metadata.name as string);
  for (const name of names) {
    const claim = await getOrUndefined(() => client.get(IPAddressClaimType, { namespace, name }));
    if (!claim?.metadata.ownerReferences?.some((r) => r.uid === vcdMachine.metadata.uid)) continue;
    await getOrUndefined(() => client.delete(IPAddressClaimType, { namespace, name }));
  }
}

/** `status.addresses`: the primary NIC's IP, every other NIC's, and the VM name (Hostname, InternalDNS). */
export function machineAddresses(name: string, primaryIp: string, nics: ObservedNic[]): MachineAddress[] {
  const others = nics.flatMap((n) => (n.ip && n.ip !== primaryIp ? [n.ip] : []));
  return [
    { type: 'InternalIP', address: primaryIp },
    ...others.map((address) => ({ type: 'InternalIP' as const, address })),
    { type: 'Hostname', address: name },
    { type: 'InternalDNS', address: name },
  ];
}
