/**
 * capvcd's RBAC, from its code: what its controllers watch (our kinds, Cluster API's Clusters and
 * Machines, the identities) the builder knows; what the reconcilers write and read fresh beyond
 * that is declared here, each with its reason.
 */
import { type Permission, permissionOn } from '@capstan/runtime';
import { Namespace, Secret } from '@capstan/runtime/client';
import { IPAddressType } from './api/ipam.js';
import { VCDClusterType, VCDMachineTemplateType, VCDMachineType } from './api/types.js';

/** What capvcd does beyond watching its kinds and Cluster API's. */
export function capvcdPermissions(): Permission[] {
  const finalizer = 'its finalizer (a JSON patch; re-read fresh when the patch finds the list changed)';
  return [
    permissionOn(VCDClusterType, ['get', 'patch'], {
      why: `${finalizer}; the control plane endpoint; deletion reads the cluster fresh`,
    }),
    permissionOn(VCDMachineType, ['get', 'patch'], { why: `${finalizer}; the providerID` }),
    ...[VCDClusterType, VCDMachineType, VCDMachineTemplateType].map((type) =>
      permissionOn(type, ['patch'], { subresource: 'status', why: 'conditions and what it provisioned' }),
    ),
    permissionOn(Secret, ['get', 'list', 'watch', 'patch'], {
      why: "VCD credentials and bootstrap data; the credentials Secret gets our finalizer, owner reference and clusterctl's move label, and is watched by name (an informer per Secret a VCDCluster names)",
    }),
    permissionOn(IPAddressType, ['get'], {
      why: "a MANUAL NIC's address, the IPAddress the IPAM provider made for its claim (read by name)",
    }),
    permissionOn(Namespace, ['get'], {
      why: "a namespace's labels decide whether a VCDClusterIdentity lets it use another namespace's credentials",
    }),
  ];
}
