/**
 * RBAC from the code: the roles and bindings an operator's wiring needs, as objects and as the YAML
 * `capstan gen rbac` commits (rules with the reason for each as a comment).
 */
import type { ServiceAccount } from '../api/generated/core/v1.js';
import type {
  ClusterRole,
  ClusterRoleBinding,
  PolicyRule,
  Role,
  RoleBinding,
} from '../api/generated/rbac/v1.js';
import { mergePermissions, type Permission } from '../controller/permissions.js';
import type { ManagerOptions } from './manager.js';

/** Whose roles: the role's name and the ServiceAccount bound to it. */
export interface RbacTarget {
  /**
   * Name of the ClusterRole, the Roles and their bindings, e.g. `greeting-controller` (a
   * permission's `role` names another).
   */
  name: string;
  serviceAccount: { namespace: string; name: string };
  /** Write the ServiceAccount too, first (when no other manifest of the operator does). */
  withServiceAccount?: boolean;
}

/** What {@link rbacFor} gives: the ServiceAccount, the roles and their bindings. */
export type RbacObject = ServiceAccount | ClusterRole | Role | ClusterRoleBinding | RoleBinding;

const RBAC = 'rbac.authorization.k8s.io/v1';

/**
 * What an operator's `rbacWiring` (the wiring `capstan gen rbac` reads) takes: manager options with
 * the transport given, so its RBAC test can run it through one that records each request.
 */
export type RbacWiringOptions = Omit<ManagerOptions, 'transport'> &
  Pick<Required<ManagerOptions>, 'transport'>;

/** Anything that knows its operator's permissions: a manager. */
export interface PermissionSource {
  readonly permissions: { list(): Permission[] };
}

const toRule = (p: Permission): PolicyRule => ({
  apiGroups: [p.group],
  resources: [p.resource],
  verbs: [...p.verbs],
  ...(p.resourceNames?.length ? { resourceNames: [...p.resourceNames] } : {}),
});

/**
 * One role to write: a ClusterRole (namespace undefined) or a namespace's Role, named after the
 * target unless its permissions chose a name, with its rules.
 */
interface RoleNeed {
  kind: 'ClusterRole' | 'Role';
  name: string;
  namespace: string | undefined;
  permissions: Permission[];
}

/**
 * The cluster's needs in a ClusterRole, each namespace's (a Lease) in a Role there; a permission
 * with a `role` goes into a role of that name (its own, in the same scope). The target's roles
 * first, then the named ones, each group cluster first, then namespaces in order.
 */
function roleNeeds(source: PermissionSource | readonly Permission[], target: string): RoleNeed[] {
  const permissions = 'permissions' in source ? source.permissions.list() : mergePermissions(source);
  const names = [...new Set(permissions.flatMap((p) => (p.role && p.role !== target ? [p.role] : [])))];
  const roleOf = (p: Permission) => p.role ?? target;
  return [target, ...names.sort()].flatMap((name) => {
    const mine = permissions.filter((p) => roleOf(p) === name);
    const cluster = mine.filter((p) => p.namespace === undefined);
    const namespaces = [...new Set(mine.flatMap((p) => (p.namespace ? [p.namespace] : [])))].sort();
    return [
      ...(cluster.length > 0
        ? [{ kind: 'ClusterRole' as const, name, namespace: undefined, permissions: cluster }]
        : []),
      ...namespaces.map((namespace) => ({
        kind: 'Role' as const,
        name,
        namespace,
        permissions: mine.filter((p) => p.namespace === namespace),
      })),
    ];
  });
}

/** A manifest with, for a role, each rule's reason (rule i's is `why[i]`). */
interface Manifest {
  object: RbacObject;
  why: (string | undefined)[];
}

function manifests(source: PermissionSource | readonly Permission[], target: RbacTarget): Manifest[] {
  const { name: saName, namespace: saNamespace } = target.serviceAccount;
  const subjects = [{ kind: 'ServiceAccount', name: saName, namespace: saNamespace }];
  const account: ServiceAccount = {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: saName, namespace: saNamespace },
  };
  const roles = roleNeeds(source, target.name).flatMap(({ kind, name, namespace, permissions }) => {
    const metadata = namespace ? { name, namespace } : { name };
    const role: Role | ClusterRole = { apiVersion: RBAC, kind, metadata, rules: permissions.map(toRule) };
    const binding: RoleBinding | ClusterRoleBinding = {
      apiVersion: RBAC,
      kind: `${kind}Binding`,
      metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name },
      subjects,
    };
    return [
      { object: role, why: permissions.map((p) => p.why) },
      { object: binding, why: [] },
    ];
  });
  return target.withServiceAccount ? [{ object: account, why: [] }, ...roles] : roles;
}

/**
 * The ClusterRole and the Roles an operator needs, each bound to the target's ServiceAccount. The
 * same wiring gives the same objects, in the same order.
 */
export function rbacFor(source: PermissionSource | readonly Permission[], target: RbacTarget): RbacObject[] {
  return manifests(source, target).map((m) => m.object);
}

// A YAML scalar: bare when it is a plain word, else JSON-quoted (valid YAML).
const scalar = (s: string) => (/^[a-z0-9]([a-z0-9.:/_-]*[a-z0-9])?$/i.test(s) ? s : JSON.stringify(s));
const flow = (items: readonly string[]) => `[${items.map(scalar).join(', ')}]`;
const flowMap = (fields: Record<string, string | undefined>) =>
  `{ ${Object.entries(fields)
    .flatMap(([k, v]) => (v === undefined ? [] : [`${k}: ${scalar(v)}`]))
    .join(', ')} }`;

function ruleLines(rule: PolicyRule, why: string | undefined): string[] {
  const lines = why ? [`  # ${why}`] : [];
  lines.push(`  - apiGroups: ${flow(rule.apiGroups ?? [])}`, `    resources: ${flow(rule.resources ?? [])}`);
  if (rule.resourceNames?.length) lines.push(`    resourceNames: ${flow(rule.resourceNames)}`);
  lines.push(`    verbs: ${flow(rule.verbs)}`);
  return lines;
}

const isRole = (o: RbacObject): o is Role | ClusterRole => o.kind === 'Role' || o.kind === 'ClusterRole';
const isBinding = (o: RbacObject): o is RoleBinding | ClusterRoleBinding =>
  o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding';

/** One manifest as a YAML document: metadata, references and subjects in flow style, rules commented. */
function manifestYaml({ object, why }: Manifest): string {
  const { name, namespace } = object.metadata;
  const lines = [
    `apiVersion: ${object.apiVersion}`,
    `kind: ${object.kind}`,
    `metadata: ${flowMap({ name, namespace })}`,
  ];
  if (isRole(object))
    lines.push('rules:', ...(object.rules ?? []).flatMap((rule, i) => ruleLines(rule, why[i])));
  if (isBinding(object)) {
    lines.push(`roleRef: ${flowMap({ ...object.roleRef })}`, 'subjects:');
    for (const s of object.subjects ?? [])
      lines.push(`  - ${flowMap({ kind: s.kind, name: s.name, namespace: s.namespace })}`);
  }
  return lines.join('\n');
}

/**
 * The roles and bindings as YAML documents, each rule under a comment saying why it is there;
 * `header` (lines without `#`) goes first. What `capstan gen rbac` writes.
 */
export function rbacYaml(
  source: PermissionSource | readonly Permission[],
  target: RbacTarget,
  header: readonly string[] = [],
): string {
  const comment = header.map((line) => `# ${line}`.trimEnd());
  const docs = manifests(source, target).map(manifestYaml);
  return `${[...comment, docs.join('\n---\n')].join('\n')}\n`;
}
