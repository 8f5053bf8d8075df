/**
 * The coordinator's RBAC, from its code: what its controller watches, the builder knows; what a
 * round, the grant fence and FleetLock do beyond that is declared here, each with its reason.
 */
import { type Permission, permissionOn } from '@capstan/runtime';
import { Lease, Node, Pod, PodDisruptionBudget } from '@capstan/runtime/client';
import { DEFAULT_FENCE_NAME } from './fence.js';
import type { CoordinatorOptions } from './options.js';
import { RebootGroupType } from './resources.js';

/** What the coordinator does beyond watching Nodes and RebootGroups. */
export function coordinatorPermissions(options: CoordinatorOptions): Permission[] {
  const fence = { namespace: options.namespace, why: 'the grant fence (docs/ARCHITECTURE.md)' };
  const needs = [
    permissionOn(Node, ['get', 'patch'], {
      why: 'grants and releases reboots on node annotations (which keys: admission-policy.yaml); the fence and FleetLock read a node fresh',
    }),
    permissionOn(RebootGroupType, ['patch'], { subresource: 'status', why: "each group's status" }),
    permissionOn(Pod, ['list'], {
      why: 'the blockingPods gate, PDB-aware grants and FleetLock drains list pods',
    }),
    permissionOn(PodDisruptionBudget, ['list'], {
      why: "PDB-aware grants weigh nodes' pods against their budgets",
    }),
    permissionOn(Lease, ['get', 'update'], {
      ...fence,
      resourceNames: [options.fenceName ?? DEFAULT_FENCE_NAME],
    }),
    permissionOn(Lease, ['create'], fence),
  ];
  if (options.fleetlock)
    needs.push(
      permissionOn(Pod, ['create'], { subresource: 'eviction', why: "drains FleetLock clients' nodes" }),
    );
  return needs;
}
