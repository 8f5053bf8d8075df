/**
 * The VCDMachine's `networkInterfaces`: how each NIC gets its address (VCD's
 * IpAddressAllocationMode), MANUAL from a Cluster API IPAM pool (the contract's
 * `addressesFromPools`). Used by `machineSpecSchema`.
 */

type Schema = Record<string, unknown>;

/** A non-empty string of at most `maxLength`. */
const str = (description: string, maxLength: number): Schema => ({
  type: 'string',
  description,
  minLength: 1,
  maxLength,
});

/** A Cluster API IPAM pool (the contract's `addressesFromPools` entry: a TypedLocalObjectReference). */
const ipPoolRefSchema: Schema = {
  type: 'object',
  required: ['apiGroup', 'kind', 'name'],
  properties: {
    apiGroup: str('API group of the pool, e.g. ipam.cluster.x-k8s.io', 253),
    kind: str('Kind of the pool, e.g. InClusterIPPool', 63),
    name: str('Name of the pool, in the VCDMachine’s namespace', 253),
  },
};

/** How each NIC of the VM gets its address (VCD's IpAddressAllocationMode). */
export const networkInterfacesSchema: Schema = {
  type: 'array',
  maxItems: 10,
  description:
    'Addressing per NIC: entry i is NIC i (0: the cluster’s or zone’s network, i ≥ 1: extraOvdcNetworks[i-1]); a NIC without an entry is POOL',
  items: {
    type: 'object',
    properties: {
      ipAllocationMode: {
        type: 'string',
        enum: ['POOL', 'DHCP', 'MANUAL'],
        description:
          'POOL (default): VCD’s static pool; DHCP: the network’s DHCP service; MANUAL: an address from a Cluster API IPAM pool',
      },
      addressesFromPools: {
        type: 'array',
        maxItems: 1,
        description:
          'MANUAL: the IPAM pool an IPAddressClaim (owned by the VCDMachine) takes the address from',
        items: ipPoolRefSchema,
      },
    },
    'x-kubernetes-validations': [
      {
        rule: "(has(self.ipAllocationMode) && self.ipAllocationMode == 'MANUAL') == (has(self.addressesFromPools) && size(self.addressesFromPools) > 0)",
        message: 'MANUAL takes its address from one pool in addressesFromPools; POOL and DHCP name none',
      },
    ],
  },
};
