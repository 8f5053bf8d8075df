/**
 * The agent's RBAC: deploy/rbac.yaml is what `capstan gen rbac` makes of its wiring, and run under
 * a ServiceAccount bound to exactly those rules (envtest), a whole cycle (report, cordon, drain a
 * pod through the Eviction API, reboot) is never refused, and every rule is used or its non-use
 * explained below.
 */
import { fileURLToPath } from 'node:url';
import { genRbacFile } from '@capstan/cli';
import { auditUnderRbac, readManifests } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol, coordinatorKeys } from '@capstan/reboot-protocol';
import { Client, type RbacWiringOptions } from '@capstan/runtime';
import { HttpTransport, Node, Pod } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { AGENT_RBAC, rbacWiring } from '../src/index.js';
import { annotate, createNode, ManualSource, uniqueName } from './helpers.js';

const rbacFile = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));
const env = useControlPlane('agent-rbac');
const k = capstanProtocol.annotations;

/** Grants this test's cycle does not reach, and why each stays. */
const JUSTIFIED = {
  'patch nodes/status':
    'the RebootQuarantined and RebootSourceError conditions: this cycle neither quarantines nor fails its source',
};

describe('the agent RBAC', () => {
  it('is generated from the wiring (run `npm run build && npm run gen:rbac -w packages/agent`)', async () => {
    const { outcome } = await genRbacFile({
      module: fileURLToPath(new URL('../src/rbac.ts', import.meta.url)),
      ...AGENT_RBAC,
      output: rbacFile,
      check: true,
      regenerate: 'npm run build && npm run gen:rbac -w packages/agent',
    });
    expect(outcome).toBe('unchanged');
  });

  it('lets a whole reboot cycle do all it does under its ServiceAccount, and grants nothing unexplained', async () => {
    const admin = new Client(new HttpTransport(env.kubeConfig));
    const node = uniqueName('rbac-node');
    await createNode(admin, node, { bootID: 'boot-1' });
    await admin.create(Pod, {
      metadata: { name: `${node}-web`, namespace: env.namespace },
      spec: { nodeName: node, containers: [{ name: 'c', image: 'registry.invalid/web:1' }] },
    } as Pod);

    let reboots = 0;
    const wiring = (options: RbacWiringOptions) =>
      rbacWiring(options, {
        nodeName: node,
        source: new ManualSource({ rebootNeeded: true }),
        rebooter: { reboot: async () => void reboots++ },
        osReleasePath: '/nonexistent/os-release',
        drainGracePeriodSeconds: 0,
        podPollMs: 100,
      });
    const operator = { ...AGENT_RBAC, rbac: readManifests(rbacFile), wiring, justified: JUSTIFIED };
    const audit = await auditUnderRbac(env.plane, operator, async () => {
      await eventually(
        async () => (await admin.get(Node, { name: node })).metadata.annotations?.[k.rebootNeeded] === 'true',
        { what: 'reboot-needed reported', timeoutMs: 30_000 },
      );
      await annotate(admin, node, { [k.rebootOk]: 'true', [coordinatorKeys.grantedBootId]: 'boot-1' });
      await eventually(async () => reboots > 0, { what: 'the node drained and rebooted', timeoutMs: 30_000 });
    });
    const { items: left } = await admin.list(Pod, { namespace: env.namespace });
    expect(left.map((p) => p.metadata.name)).not.toContain(`${node}-web`);
    expect(audit.missing, 'requests refused (403): a rule is missing').toEqual([]);
    expect(audit.unused, 'rules no request used').toEqual([]);
  }, 90_000);
});
