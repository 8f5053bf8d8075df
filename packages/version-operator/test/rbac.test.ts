/**
 * The version operator's RBAC: deploy/rbac.yaml is what `capstan gen rbac` makes of its wiring,
 * and run under a ServiceAccount bound to exactly those rules (envtest with the controllers,
 * scheduler and kwok nodes, so the workloads roll out), a stack deployed to Available and then
 * deleted is never refused, and every rule is used or its non-use explained below.
 */
import { fileURLToPath } from 'node:url';
import { genRbacFile } from '@capstan/cli';
import { auditUnderRbac, readManifests } from '@capstan/envtest';
import { useOwnControlPlane } from '@capstan/envtest/vitest';
import type { RbacWiringOptions } from '@capstan/runtime';
import { Namespace } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { type RebootStack, RebootStackType, rbacWiring, VERSION_OPERATOR_RBAC } from '../src/index.js';
import { admin, condition, NAMESPACE, NODES, rollouts } from './helpers.js';
import { VERSION_A } from './version-b.js';

const rbacFile = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));
const env = useOwnControlPlane({ controllerManager: true, scheduler: true, kwok: true }, 'vo-rbac');

// What the recording cannot see or this scenario does not reach, and why each grant stays.
const JUSTIFIED = {
  'bind rbac.authorization.k8s.io/clusterroles': 'checked inside a binding apply, not a request of its own',
  'bind rbac.authorization.k8s.io/roles': 'checked inside a binding apply, not a request of its own',
  'escalate rbac.authorization.k8s.io/clusterroles': 'checked inside a role apply, not a request of its own',
  'escalate rbac.authorization.k8s.io/roles': 'checked inside a role apply, not a request of its own',
  'list pods': 'a protocol migration lists which agent runs where; this stack migrates nothing',
  'get pods': "the API server asks it of whoever creates the agent's eviction policy (paramKind Pod)",
  'list nodes': "a protocol migration mirrors nodes' keys; this stack migrates nothing",
  'patch nodes': "a protocol migration mirrors nodes' keys; this stack migrates nothing",
  'patch reboot.capstan.dev/rebootgroups': 'pausing groups during a migration, and applying the defaults',
  'list reboot.capstan.dev/rebootgroups':
    'whether default groups exist (only when defaultRebootGroups is on)',
};

describe('the version operator RBAC', () => {
  it('is generated from the wiring (run `npm run build && npm run gen:rbac -w packages/version-operator`)', async () => {
    const { outcome } = await genRbacFile({
      module: fileURLToPath(new URL('../src/rbac.ts', import.meta.url)),
      ...VERSION_OPERATOR_RBAC,
      output: rbacFile,
      check: true,
      regenerate: 'npm run build && npm run gen:rbac -w packages/version-operator',
    });
    expect(outcome).toBe('unchanged');
  });

  it('lets a stack roll out and be deleted under its ServiceAccount, and grants nothing unexplained', async () => {
    await env.plane.addNodes(NODES);
    await env.plane.installCRDs([
      fileURLToPath(new URL('../deploy/crds/rebootstacks.yaml', import.meta.url)),
    ]);
    const operator = {
      ...VERSION_OPERATOR_RBAC,
      rbac: readManifests(rbacFile),
      wiring: (options: RbacWiringOptions) => rbacWiring(options, { rolloutPollMs: 300 }),
      justified: JUSTIFIED,
    };
    const client = admin(env);
    const audit = await auditUnderRbac(env.plane, operator, async () => {
      await client.create(RebootStackType, {
        metadata: { name: 'capstan' },
        spec: { version: VERSION_A, agent: { maxUnavailable: 1 } },
      } as RebootStack);
      await eventually(
        async () => {
          const s = await client.get(RebootStackType, { name: 'capstan' });
          return condition(s, 'Available')?.status === 'True' ? true : undefined;
        },
        { what: 'the stack Available', timeoutMs: 90_000 },
      );
      await client.delete(RebootStackType, { name: 'capstan' });
      await eventually(
        async () => {
          const gone = await client.get(RebootStackType, { name: 'capstan' }).then(
            () => false,
            () => true,
          );
          const r = await rollouts(client);
          return gone && !r.coordinator && !r.agent ? true : undefined;
        },
        { what: 'the stack and its workloads gone', timeoutMs: 60_000 },
      );
    });
    expect((await client.get(Namespace, { name: NAMESPACE })).metadata.deletionTimestamp).toBeUndefined();
    expect(audit.missing, 'requests refused (403): a rule is missing').toEqual([]);
    expect(audit.unused, 'rules no request used').toEqual([]);
  }, 240_000);
});
