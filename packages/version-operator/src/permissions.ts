/**
 * The version operator's RBAC, from its code: watching stacks and its workloads the builder knows;
 * what it applies, prunes and migrates is declared here. RBAC lets a subject create a role only
 * with permissions it holds itself unless it may `escalate` it, and bind a role only if it holds it
 * or may `bind` it: so `bind` and `escalate` go on exactly the roles its catalogue ships, by name.
 */
import { type Permission, permissionOn } from '@capstan/runtime';
import { ClusterRole, Node, Pod, Role } from '@capstan/runtime/client';
import { RebootStackType } from './api/reboot-stack.js';
import type { Catalogue } from './catalogue.js';
import { RebootGroupKind } from './decide/default-groups.js';
import { DELETION_ORDER, STACK_KINDS } from './kinds.js';

/** The names of the objects of `kind` in every version of the catalogue. */
function namesOf(catalogue: Catalogue, kind: string): string[] {
  const names = catalogue.versions().flatMap((version) => {
    const entry = catalogue.get(version);
    const manifests = entry ? Object.values(entry.manifests).flat() : [];
    return manifests.filter((m) => m.kind === kind).map((m) => m.metadata.name);
  });
  return [...new Set(names)].sort();
}

/** What the version operator does beyond watching stacks, Deployments and DaemonSets. */
export function versionOperatorPermissions(catalogue: Catalogue): Permission[] {
  const applies = 'applies, prunes (by its labels) and deletes with the stack what a stack renders';
  const appliesOnly = 'applies what a stack renders; never prunes or deletes it (shared)';
  const rbac = 'creates and binds the roles it ships, holding none of their rules';
  return [
    permissionOn(RebootStackType, ['get', 'patch'], { why: 'reads a stack fresh; its finalizer' }),
    permissionOn(RebootStackType, ['patch'], { subresource: 'status', why: "each stack's status" }),
    // get: what is there before applying; create: an apply of a new object is a create too.
    ...STACK_KINDS.map((kind) =>
      DELETION_ORDER.includes(kind)
        ? permissionOn(kind, ['get', 'list', 'create', 'patch', 'delete'], { why: applies })
        : permissionOn(kind, ['get', 'create', 'patch'], { why: appliesOnly }),
    ),
    permissionOn(ClusterRole, ['bind', 'escalate'], {
      resourceNames: namesOf(catalogue, 'ClusterRole'),
      why: rbac,
    }),
    permissionOn(Role, ['bind', 'escalate'], { resourceNames: namesOf(catalogue, 'Role'), why: rbac }),
    permissionOn(RebootGroupKind, ['list', 'create', 'patch'], {
      why: 'the default RebootGroups, and pausing them during a migration',
    }),
    permissionOn(Pod, ['get', 'list'], {
      why: "a migration lists which agent runs where; get: only who may get every Pod may create the agent's eviction policy (paramKind Pod)",
    }),
    permissionOn(Node, ['list', 'patch'], { why: "a migration mirrors nodes' protocol keys" }),
  ];
}
