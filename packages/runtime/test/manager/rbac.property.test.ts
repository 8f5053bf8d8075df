import fc from 'fast-check';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from '../../src/api/generated/rbac/v1.js';
import { mergePermissions, type Permission, Permissions, type Verb } from '../../src/controller/index.js';
import { Manager, type RbacObject, rbacFor, rbacYaml } from '../../src/manager/index.js';
import { FakeCluster } from '../../src/testing/index.js';

const verbs: Verb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const permission: fc.Arbitrary<Permission> = fc.record(
  {
    group: fc.constantFrom('', 'apps', 'example.dev', 'coordination.k8s.io'),
    resource: fc.constantFrom('configmaps', 'widgets', 'widgets/status', 'leases'),
    verbs: fc.uniqueArray(fc.constantFrom(...verbs), { minLength: 1 }),
    namespace: fc.constantFrom('ops', 'kube-system'),
    resourceNames: fc.uniqueArray(fc.constantFrom('a', 'b-1'), { minLength: 1 }),
    why: fc.constantFrom('leader election', 'cordons: nodes "a"'),
  },
  { requiredKeys: ['group', 'resource', 'verbs'] },
);
const isRole = (o: RbacObject): o is Role | ClusterRole => o.kind === 'Role' || o.kind === 'ClusterRole';
const isBinding = (o: RbacObject): o is RoleBinding | ClusterRoleBinding =>
  o.kind?.endsWith('Binding') === true;

const target = { name: 'widget-controller', serviceAccount: { namespace: 'ops', name: 'widget' } };

/** What a set of permissions allows, as (namespace, group, resource, names, verb) strings. */
const allowed = (ps: readonly Permission[]) =>
  new Set(
    ps.flatMap((p) =>
      p.verbs.map((v) =>
        JSON.stringify([p.namespace ?? '', p.group, p.resource, [...(p.resourceNames ?? [])].sort(), v]),
      ),
    ),
  );

/** A binding's or role's field, on whichever RBAC object kind the test holds. */
function fieldOf(o: RbacObject | undefined, field: 'subjects' | 'rules' | 'roleRef'): unknown {
  if (!o || !(field in o)) return undefined;
  return (o as unknown as Record<string, unknown>)[field];
}

describe('RBAC from permissions', () => {
  it('adding one by one holds one rule per scope and lists what merging all at once gives', () => {
    fc.assert(
      fc.property(fc.array(permission, { maxLength: 12 }), (ps) => {
        const permissions = new Permissions();
        for (const p of [...ps, ...ps]) permissions.add(p);
        expect(permissions.list()).toEqual(mergePermissions(ps));
        expect(permissions.size).toBe(mergePermissions(ps).length);
      }),
    );
  });

  it('merging keeps exactly what was allowed, one rule per scope, in an order independent of input', () => {
    fc.assert(
      fc.property(fc.array(permission, { maxLength: 12 }), (ps) => {
        const merged = mergePermissions(ps);
        expect(allowed(merged)).toEqual(allowed(ps));
        const scopes = merged.map((p) => JSON.stringify([p.namespace, p.group, p.resource, p.resourceNames]));
        expect(new Set(scopes).size).toBe(merged.length);
        expect(mergePermissions([...ps].reverse()).map((p) => ({ ...p, why: undefined }))).toEqual(
          merged.map((p) => ({ ...p, why: undefined })),
        );
      }),
    );
  });

  it('writes YAML that reads back as the objects rbacFor gives', () => {
    fc.assert(
      fc.property(fc.array(permission, { maxLength: 12 }), (ps) => {
        for (const withServiceAccount of [false, true]) {
          const t = { ...target, withServiceAccount };
          const text = rbacYaml(ps, t, ['generated', '']);
          expect(yaml.loadAll(text).filter((d) => d !== null)).toEqual(rbacFor(ps, t));
        }
      }),
    );
  });

  it('puts cluster needs in a ClusterRole and namespaced ones in a Role there, each bound', () => {
    const objects = rbacFor(
      [
        { group: '', resource: 'configmaps', verbs: ['get'] },
        { group: 'coordination.k8s.io', resource: 'leases', verbs: ['create'], namespace: 'ops' },
      ],
      target,
    );
    expect(objects.map((o) => `${o.kind} ${o.metadata.namespace ?? ''}`)).toEqual([
      'ClusterRole ',
      'ClusterRoleBinding ',
      'Role ops',
      'RoleBinding ops',
    ]);
    expect(fieldOf(objects[1], 'subjects')).toEqual([
      { kind: 'ServiceAccount', namespace: 'ops', name: 'widget' },
    ]);
  });
});

describe('a permission with a role of its own', () => {
  it('goes into a role of that name, in its scope, bound to the same account', () => {
    const objects = rbacFor(
      [
        { group: '', resource: 'nodes', verbs: ['patch'] },
        {
          group: 'events.k8s.io',
          resource: 'events',
          verbs: ['create'],
          namespace: 'default',
          role: 'w-events',
        },
        {
          group: 'events.k8s.io',
          resource: 'events',
          verbs: ['patch'],
          namespace: 'default',
          role: 'w-events',
        },
      ],
      target,
    );
    expect(objects.map((o) => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`)).toEqual([
      'ClusterRole /widget-controller',
      'ClusterRoleBinding /widget-controller',
      'Role default/w-events',
      'RoleBinding default/w-events',
    ]);
    expect(fieldOf(objects[2], 'rules')).toEqual([
      { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
    ]);
    expect(fieldOf(objects[3], 'roleRef')).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'w-events',
    });
    expect(fieldOf(objects[3], 'subjects')).toEqual([
      { kind: 'ServiceAccount', namespace: 'ops', name: 'widget' },
    ]);
  });

  it('keeps every grant in exactly the role it names, whatever the mix', () => {
    const named = permission.chain((p) =>
      fc.constantFrom(undefined, 'widget-controller', 'other').map((role) => (role ? { ...p, role } : p)),
    );
    fc.assert(
      fc.property(fc.array(named, { maxLength: 12 }), (ps) => {
        const objects = rbacFor(ps, target);
        const roles = objects.filter(isRole);
        for (const role of ['widget-controller', 'other']) {
          const granted = roles
            .filter((o) => o.metadata.name === role)
            .flatMap((o) =>
              (o.rules ?? []).map((r) => ({
                group: r.apiGroups?.[0] ?? '',
                resource: r.resources?.[0] ?? '',
                verbs: r.verbs as Verb[],
                ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
                ...(r.resourceNames ? { resourceNames: r.resourceNames } : {}),
              })),
            );
          const wanted = ps.filter((p) => (p.role ?? 'widget-controller') === role);
          expect(allowed(granted)).toEqual(allowed(wanted));
        }
        expect(yaml.loadAll(rbacYaml(ps, target)).filter((d) => d !== null)).toEqual(objects);
        // Each role is bound under its own name.
        for (const binding of objects.filter(isBinding))
          expect(binding.roleRef.name).toBe(binding.metadata.name);
      }),
    );
  });
});

describe("a manager's events", () => {
  const managerWith = (options: Partial<Parameters<typeof Manager.create>[0]>) =>
    Manager.create({ transport: new FakeCluster({ kinds: [] }), logLevel: 'silent', ...options });

  it('need a cluster rule by default, and one in a named Role where eventsScope says', () => {
    const anywhere = managerWith({});
    expect(anywhere.permissions.list()).toEqual([]);
    void anywhere.events;
    expect(anywhere.permissions.list()).toEqual([
      { group: 'events.k8s.io', resource: 'events', verbs: ['create', 'patch'], why: 'records events' },
    ]);
    void anywhere.events;
    expect(anywhere.permissions.size).toBe(1);
    const scoped = managerWith({ eventsScope: { namespace: 'default', role: 'w-events' } });
    void scoped.events;
    expect(
      rbacFor(scoped, target).map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`),
    ).toEqual(['Role default/w-events', 'RoleBinding default/w-events']);
  });

  it('are one rule however often a reconcile reads them', () => {
    const manager = managerWith({});
    for (let i = 0; i < 100; i++) void manager.events;
    expect(manager.permissions.size).toBe(1);
    expect(manager.permissions.list()).toHaveLength(1);
  });
});
