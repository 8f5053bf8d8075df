import type { ResourceType } from '../api/types.js';

/** An RBAC verb on a resource. */
export type Verb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'deletecollection'
  // RBAC's own: create a role with rules the writer lacks, bind one it does not hold.
  | 'escalate'
  | 'bind';

/**
 * The verbs a read through the cache needs: the informer lists and watches; the client's gets are
 * answered from the cache. A direct read (`{ direct: true }`) needs `get`, declared with `permits`.
 */
export const READ_VERBS: readonly Verb[] = ['list', 'watch'];
/** The verbs an owner needs on what it owns, beside reading it. */
export const OWNER_WRITE_VERBS: readonly Verb[] = ['create', 'update', 'patch', 'delete'];

/**
 * One thing an operator may do, as an RBAC rule: verbs on a resource (`configmaps`,
 * `greetings/status`) of a group, in the whole cluster or in one namespace.
 */
export interface Permission {
  /** API group; `''` for the core group. */
  group: string;
  /** Plural, with `/subresource` for a subresource. */
  resource: string;
  verbs: readonly Verb[];
  /** Only in this namespace (a Role there); otherwise the cluster (a ClusterRole). */
  namespace?: string;
  /** Only these objects (`resourceNames`). */
  resourceNames?: readonly string[];
  /**
   * The role that holds the rule, when not the operator's own: a name other manifests refer to
   * (e.g. `capstan-agent-events` for events in `default`). Default: the target's name.
   */
  role?: string;
  /** Why the operator needs it: written beside the rule. */
  why?: string;
}

/** Verbs on a kind (or one of its subresources), as a {@link Permission}. */
export function permissionOn(
  type: ResourceType,
  verbs: readonly Verb[],
  options: Omit<Permission, 'group' | 'resource' | 'verbs'> & { subresource?: string } = {},
): Permission {
  const { subresource, ...rest } = options;
  const resource = subresource ? `${type.plural}/${subresource}` : type.plural;
  return { group: type.group, resource, verbs, ...rest };
}

const VERB_ORDER: readonly Verb[] = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
  'escalate',
  'bind',
];

const scopeKey = (p: Permission) =>
  JSON.stringify([p.role ?? '', p.namespace ?? '', p.group, p.resource, [...(p.resourceNames ?? [])].sort()]);

/**
 * What an operator needs, collected from where it is wired: the controller builder adds what its
 * sources read and own, the manager what leader election, events and secure metrics use, and
 * reconcilers declare the rest (`permits`). {@link Permissions.list} merges them into one rule per
 * resource and scope (role, namespace, names), verbs in a fixed order, reasons kept.
 */
export class Permissions {
  // One rule per scope, its verbs and reasons as sets, so adding the same grant again (every read
  // of `manager.events`) holds no more.
  private readonly rules = new Map<string, { rule: Permission; verbs: Set<Verb>; why: Set<string> }>();

  /** Adds what `permission` grants (merged with what is there already). */
  add(permission: Permission): void {
    const key = scopeKey(permission);
    const held = this.rules.get(key) ?? { rule: permission, verbs: new Set<Verb>(), why: new Set<string>() };
    this.rules.set(key, held);
    for (const v of permission.verbs) held.verbs.add(v);
    if (permission.why) held.why.add(permission.why);
  }

  /** How many rules it holds: one per resource and scope (role, namespace, names). */
  get size(): number {
    return this.rules.size;
  }

  /** The merged rules, ordered by namespace, group and resource: the same wiring, the same list. */
  list(): Permission[] {
    return mergePermissions(
      [...this.rules.values()].map(({ rule, verbs, why }) => {
        const { why: _why, ...scope } = rule;
        return { ...scope, verbs: [...verbs], ...(why.size > 0 ? { why: [...why].join('; ') } : {}) };
      }),
    );
  }
}

/** One rule per (role, namespace, group, resource, names), the union of the verbs, the reasons joined. */
export function mergePermissions(entries: readonly Permission[]): Permission[] {
  const merged = new Map<
    string,
    { rule: Omit<Permission, 'verbs' | 'why'>; verbs: Set<Verb>; why: Set<string> }
  >();
  for (const p of entries) {
    const key = scopeKey(p);
    const { why: _why, verbs: _verbs, ...rule } = p;
    const m = merged.get(key) ?? { rule, verbs: new Set<Verb>(), why: new Set<string>() };
    merged.set(key, m);
    for (const v of p.verbs) m.verbs.add(v);
    if (p.why) m.why.add(p.why);
  }
  return [...merged.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, { rule, verbs, why }]) => {
      const out: Permission = { ...rule, verbs: VERB_ORDER.filter((v) => verbs.has(v)) };
      if (rule.resourceNames) out.resourceNames = [...rule.resourceNames].sort();
      if (why.size > 0) out.why = [...why].join('; ');
      return out;
    });
}
