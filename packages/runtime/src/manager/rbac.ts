/**
 * RBAC from the code: the roles and bindings an operator's wiring needs, as objects and as the YAML
 * `capstan gen rbac` commits (rules with the reason for each as a comment).
 */
import type { KubeObject } from '../api/types.js';
import { mergePermissions, type Permission } from '../controller/permissions.js';

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

/** An RBAC rule as the API writes it. */
export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

/** A Role, ClusterRole or binding. */
export interface RbacObject extends KubeObject {
  rules?: PolicyRule[];
  roleRef?: { apiGroup: string; kind: string; name: string };
  subjects?: Array<{ kind: string; name: string; namespace: string }>;
}

const RBAC = 'rbac.authorization.k8s.io/v1';

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

/**
 * The ClusterRole and the Roles an operator needs, each bound to the target's ServiceAccount. The
 * same wiring gives the same objects, in the same order.
 */
export function rbacFor(source: PermissionSource | readonly Permission[], target: RbacTarget): RbacObject[] {
  const subjects = [{ kind: 'ServiceAccount', ...target.serviceAccount }];
  const account = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { ...target.serviceAccount } };
  const roles = roleNeeds(source, target.name).flatMap(({ kind, name, namespace, permissions }) => {
    const metadata = namespace ? { name, namespace } : { name };
    return [
      { apiVersion: RBAC, kind, metadata, rules: permissions.map(toRule) },
      {
        apiVersion: RBAC,
        kind: `${kind}Binding`,
        metadata,
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name },
        subjects,
      },
    ];
  });
  return target.withServiceAccount ? [account, ...roles] : roles;
}

// A YAML scalar: bare when it is a plain word, else JSON-quoted (valid YAML).
const scalar = (s: string) => (/^[a-z0-9]([a-z0-9.:/_-]*[a-z0-9])?$/i.test(s) ? s : JSON.stringify(s));
const flow = (items: readonly string[]) => `[${items.map(scalar).join(', ')}]`;

function ruleLines(p: Permission): string[] {
  const lines = p.why ? [`  # ${p.why}`] : [];
  lines.push(`  - apiGroups: ${flow([p.group])}`, `    resources: ${flow([p.resource])}`);
  if (p.resourceNames?.length) lines.push(`    resourceNames: ${flow(p.resourceNames)}`);
  lines.push(`    verbs: ${flow(p.verbs)}`);
  return lines;
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
  const sa = target.serviceAccount;
  const docs = roleNeeds(source, target.name).flatMap((role) => {
    const { kind, namespace, permissions } = role;
    const name = scalar(role.name);
    const head = (k: string) => [
      `apiVersion: ${RBAC}`,
      `kind: ${k}`,
      namespace
        ? `metadata: { name: ${name}, namespace: ${scalar(namespace)} }`
        : `metadata: { name: ${name} }`,
    ];
    return [
      [...head(kind), 'rules:', ...permissions.flatMap(ruleLines)].join('\n'),
      [
        ...head(`${kind}Binding`),
        `roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ${kind}, name: ${name} }`,
        'subjects:',
        `  - { kind: ServiceAccount, name: ${scalar(sa.name)}, namespace: ${scalar(sa.namespace)} }`,
      ].join('\n'),
    ];
  });
  const account = [
    'apiVersion: v1',
    'kind: ServiceAccount',
    `metadata: { name: ${scalar(sa.name)}, namespace: ${scalar(sa.namespace)} }`,
  ].join('\n');
  const comment = header.map((line) => `# ${line}`.trimEnd());
  const all = target.withServiceAccount ? [account, ...docs] : docs;
  return `${[...comment, all.join('\n---\n')].join('\n')}\n`;
}
