/**
 * The parts of Cluster API's IPAM kinds (v1beta2) this provider uses: it creates an
 * IPAddressClaim per MANUAL NIC, and an IPAM provider answers with an IPAddress the claim's
 * `status.addressRef` names (the contract behind a machine's `addressesFromPools`).
 */
import { defineResource, type KubeObject } from '@capstan/runtime';

/** The IPAM API group and the version read and written. */
export const IPAM_GROUP = 'ipam.cluster.x-k8s.io';
export const IPAM_VERSION = 'v1beta2';

/** A pool reference: group, kind and name of an IPAM provider's pool. */
export interface IPPoolReference {
  apiGroup: string;
  kind: string;
  name: string;
}

/** A request for one address from a pool. */
export interface IPAddressClaim extends KubeObject {
  spec: { clusterName?: string; poolRef: IPPoolReference };
  status?: {
    addressRef?: { name?: string };
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
  };
}

/** An address an IPAM provider allocated for a claim. */
export interface IPAddress extends KubeObject {
  spec: {
    address: string;
    prefix?: number;
    gateway?: string;
    claimRef: { name: string };
    poolRef: IPPoolReference;
  };
}

const ipam = { group: IPAM_GROUP, version: IPAM_VERSION, namespaced: true } as const;
export const IPAddressClaimType = defineResource<IPAddressClaim>({
  ...ipam,
  kind: 'IPAddressClaim',
  plural: 'ipaddressclaims',
});
export const IPAddressType = defineResource<IPAddress>({ ...ipam, kind: 'IPAddress', plural: 'ipaddresses' });
