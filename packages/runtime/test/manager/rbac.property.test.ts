import fc from 'fast-check';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { mergePermissions, type Permission, type Verb } from '../../src/controller/index.js';
import { rbacFor, rbacYaml } from '../../src/manager/index.js';

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

describe('RBAC from permissions', () => {
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
    expect(objects[1]?.subjects).toEqual([{ kind: 'ServiceAccount', namespace: 'ops', name: 'widget' }]);
  });
});
