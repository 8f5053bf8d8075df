/** The catalogue read from the packages' deploy/, and rendering a stack's settings over it. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Catalogue,
  currentEntry,
  defaultRebootGroups,
  RebootGroupKind,
  type RebootStack,
  renderStack,
  shippedCatalogue,
  stackLabels,
  validateStack,
  withFlag,
  workloadOf,
} from '../src/index.js';
import { catalogueWithB, VERSION_A, VERSION_B, versionB } from './version-b.js';

const stack = (spec: Partial<RebootStack['spec']>): RebootStack =>
  ({ metadata: { name: 'capstan' }, spec: { version: VERSION_A, ...spec } }) as RebootStack;
const args = (o: unknown) =>
  (o as { spec: { template: { spec: { containers: Array<{ args: string[] }> } } } }).spec.template.spec
    .containers[0]?.args;

describe('the catalogue', () => {
  it('ships the version the coordinator and agent deploy/ name, with every object of both', () => {
    const entry = currentEntry();
    expect(shippedCatalogue().versions()).toEqual([entry.version]);
    const kinds = (c: 'coordinator' | 'agent') => entry.manifests[c].map((m) => m.kind);
    expect(kinds('coordinator')).toEqual(
      expect.arrayContaining(['CustomResourceDefinition', 'Deployment', 'ClusterRole']),
    );
    expect(kinds('agent')).toEqual(
      expect.arrayContaining(['DaemonSet', 'ServiceAccount', 'ValidatingAdmissionPolicy']),
    );
    expect(entry.migrations).toEqual(['fluo->capstan']);
  });

  it('writes default RebootGroups at the coordinates of the CRD the coordinator publishes', () => {
    // The coordinates come from the protocol package; the CRD from the coordinator's deploy/.
    const crd = currentEntry().manifests.coordinator.find(
      (m) => m.kind === 'CustomResourceDefinition' && m.metadata.name === 'rebootgroups.reboot.capstan.dev',
    ) as unknown as {
      spec: {
        group: string;
        scope: string;
        names: { kind: string; plural: string };
        versions: { name: string }[];
      };
    };
    expect(crd, 'the coordinator publishes the RebootGroup CRD').toBeDefined();
    expect({
      group: crd.spec.group,
      kind: crd.spec.names.kind,
      plural: crd.spec.names.plural,
      namespaced: crd.spec.scope === 'Namespaced',
    }).toEqual({
      group: RebootGroupKind.group,
      kind: RebootGroupKind.kind,
      plural: RebootGroupKind.plural,
      namespaced: RebootGroupKind.namespaced,
    });
    expect(crd.spec.versions.map((v) => v.name)).toContain(RebootGroupKind.version);
    for (const group of defaultRebootGroups('capstan')) {
      expect(group.apiVersion).toBe(`${crd.spec.group}/${RebootGroupKind.version}`);
    }
  });
});

describe('renderStack', () => {
  it("labels every object as the stack's, the workloads' pods with the version and protocol, namespace first", () => {
    const objects = renderStack(currentEntry(), stack({ protocol: 'fluo' }));
    for (const { object, component } of objects) {
      expect(object.metadata.labels).toMatchObject({
        [stackLabels.stack]: 'capstan',
        [stackLabels.component]: component,
      });
    }
    expect(objects[0]?.object.kind).toBe('Namespace');
    expect(objects.filter((o) => o.object.kind === 'Namespace')).toHaveLength(1);
    const coordinator = workloadOf(objects, 'coordinator');
    expect(args(coordinator)).toContain('--protocol=fluo');
    expect(args(workloadOf(objects, 'agent'))).toContain('--protocol=fluo');
    // The coordinator's objects come before any of the agent's.
    const firstAgent = objects.findIndex((o) => o.component === 'agent');
    expect(objects.slice(firstAgent).every((o) => o.component === 'agent')).toBe(true);
  });

  it('lays the settings over the manifests: replicas, flags, node selector, tolerations, bound', () => {
    const objects = renderStack(
      currentEntry(),
      stack({
        coordinator: { replicas: 3, flags: { 'default-grant-timeout': '1h' } },
        agent: {
          nodeSelector: { pool: 'a' },
          tolerations: [{ operator: 'Exists' }],
          maxUnavailable: '20%',
          flags: { 'drain-timeout': '5m' },
        },
      }),
    );
    const d = workloadOf(objects, 'coordinator') as unknown as { spec: { replicas: number } };
    expect(d.spec.replicas).toBe(3);
    expect(args(d)).toContain('--default-grant-timeout=1h');
    expect(args(d)?.filter((a) => a.startsWith('--default-grant-timeout'))).toHaveLength(1);
    const ds = workloadOf(objects, 'agent') as unknown as {
      spec: { updateStrategy: unknown; template: { spec: { nodeSelector: unknown } } };
    };
    expect(ds.spec.template.spec.nodeSelector).toEqual({ pool: 'a' });
    expect(ds.spec.updateStrategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: '20%' },
    });
    expect(args(ds)).toContain('--drain-timeout=5m');
  });

  it('version B differs from A: its images, and no coordinator Service', () => {
    const a = renderStack(currentEntry(), stack({}));
    const b = renderStack(versionB(), stack({ version: VERSION_B }));
    expect(a.some((o) => o.object.kind === 'Service')).toBe(true);
    expect(b.some((o) => o.object.kind === 'Service')).toBe(false);
    expect(JSON.stringify(workloadOf(b, 'agent'))).toContain(`:${VERSION_B}`);
  });
});

describe('withFlag', () => {
  it('sets a flag exactly once and keeps the other arguments in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('--a=1', '--b', '--b=2', '--c=3', 'x')),
        fc.constantFrom('a', 'b', 'd'),
        (list, name) => {
          const out = withFlag(list, name, 'v');
          expect(out.filter((x) => x === `--${name}` || x.startsWith(`--${name}=`))).toEqual([`--${name}=v`]);
          const others = (l: string[]) => l.filter((x) => x !== `--${name}` && !x.startsWith(`--${name}=`));
          expect(others(out)).toEqual(others(list));
        },
      ),
    );
  });
});

describe('validateStack', () => {
  const catalogue: Catalogue = catalogueWithB();
  it('names the problem: unknown version, reserved or unknown flags, settings, upgrades and migrations it cannot do', () => {
    expect(validateStack(stack({ version: 'nope' }), catalogue)[0]?.reason).toBe('UnknownVersion');
    expect(validateStack(stack({ coordinator: { flags: { protocol: 'fluo' } } }), catalogue)[0]?.reason).toBe(
      'InvalidFlags',
    );
    expect(
      validateStack(stack({ agent: { flags: { 'bogus-flag': '1' } } }), catalogue)[0]?.message,
    ).toContain('--bogus-flag');
    expect(validateStack(stack({ coordinator: { replicas: 0 } }), catalogue)[0]?.reason).toBe(
      'InvalidSettings',
    );
    expect(validateStack(stack({ agent: { maxUnavailable: '0' } }), catalogue)[0]?.reason).toBe(
      'InvalidSettings',
    );
    expect(validateStack(stack({ version: VERSION_A }), catalogue, { version: VERSION_B })[0]?.reason).toBe(
      'UnsupportedUpgrade',
    );
    expect(validateStack(stack({ version: VERSION_B }), catalogue, { version: VERSION_A })).toEqual([]);
    expect(validateStack(stack({ protocol: 'fluo' }), catalogue, { protocol: 'capstan' })[0]?.reason).toBe(
      'UnsupportedMigration',
    );
    expect(validateStack(stack({ protocol: 'capstan' }), catalogue, { protocol: 'fluo' })).toEqual([]);
  });
});
