/**
 * The agent's RBAC, from its code: watching its own Node the builder knows; what a cycle does
 * beyond that is declared here, each with its reason. RBAC cannot say "only my node":
 * deploy/admission-policy.yaml does (its own Node, its own keys, evictions on its node).
 */
import { type Permission, permissionOn } from '@capstan/runtime';
import { Node, Pod } from '@capstan/runtime/client';

/**
 * Where the agent's events go: they are about its Node, cluster-scoped, so into `default`, in a
 * Role of this name (the version operator binds and escalates it by name).
 */
export const AGENT_EVENTS_SCOPE = { namespace: 'default', role: 'capstan-agent-events' } as const;

/** What an agent does beyond watching its Node. */
export function agentPermissions(): Permission[] {
  return [
    permissionOn(Node, ['get', 'patch'], {
      why: 'reads its Node fresh before acting; writes its protocol keys and spec.unschedulable (cordon)',
    }),
    permissionOn(Node, ['patch'], {
      subresource: 'status',
      why: 'its own Node conditions (RebootQuarantined, RebootSourceError)',
    }),
    permissionOn(Pod, ['list'], { why: 'the pods on its node (field selector spec.nodeName) to drain' }),
    permissionOn(Pod, ['create'], {
      subresource: 'eviction',
      why: 'drains through the Eviction API, so PodDisruptionBudgets hold; never deletes',
    }),
  ];
}
