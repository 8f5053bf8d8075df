/**
 * The coordinator's RBAC: deploy/rbac.yaml is what `capstan gen rbac` makes of its wiring, and
 * run under a ServiceAccount bound to exactly those rules (envtest), a round that grants a reboot
 * (with PDB-aware grants and a blockingPods gate on) is never refused, and every rule is used or
 * its non-use explained below.
 */
import { fileURLToPath } from 'node:url';
import { genRbacFile } from '@capstan/cli';
import { auditUnderRbac, readManifests } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol } from '@capstan/reboot-protocol';
import { Client, type RbacWiringOptions } from '@capstan/runtime';
import { HttpTransport, Node } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { COORDINATOR_RBAC, type RebootGroup, RebootGroupType, rbacWiring } from '../src/index.js';

const rbacFile = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));
const env = useControlPlane('coord-rbac');
const A = capstanProtocol.annotations;

/** Grants this test's scenario does not reach, and why each stays. */
const JUSTIFIED = {
  'create pods/eviction': "FleetLock drains its clients' nodes; no FleetLock client asks here",
  'get nodes': 'the fence reads a node fresh to poison a pending write; FleetLock reads its client',
};

describe('the coordinator RBAC', () => {
  it('is generated from the wiring (run `npm run build && npm run gen:rbac -w packages/coordinator`)', async () => {
    const { outcome } = await genRbacFile({
      module: fileURLToPath(new URL('../src/rbac.ts', import.meta.url)),
      ...COORDINATOR_RBAC,
      output: rbacFile,
      check: true,
      regenerate: 'npm run build && npm run gen:rbac -w packages/coordinator',
    });
    expect(outcome).toBe('unchanged');
  });

  it('lets a granting round do all it does under its ServiceAccount, and grants nothing unexplained', async () => {
    await env.plane.installCRDs([
      fileURLToPath(new URL('../deploy/crds/rebootgroups.yaml', import.meta.url)),
    ]);
    const admin = new Client(new HttpTransport(env.kubeConfig));
    const pool = `${env.namespace}-pool`;
    for (const n of ['a', 'b']) {
      const name = `${env.namespace}-${n}`;
      await admin.create(Node, {
        metadata: { name, labels: { pool }, annotations: { [A.rebootNeeded]: 'true' } },
      });
      const status = { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { bootID: `${n}-boot` } };
      await admin.patch(Node, { name }, 'merge', { status }, { subresource: 'status' });
    }
    await admin.create(RebootGroupType, {
      metadata: { name: pool },
      spec: {
        nodeSelector: { matchLabels: { pool } },
        maxUnavailable: 1,
        pdbAware: true,
        gates: { blockingPods: { matchLabels: { blocks: pool } } },
      },
    } as RebootGroup);

    const operator = {
      serviceAccount: COORDINATOR_RBAC.serviceAccount,
      rbac: readManifests(rbacFile),
      wiring: (options: RbacWiringOptions) => rbacWiring(options, { nodeSelector: `pool=${pool}` }),
      justified: JUSTIFIED,
    };
    const audit = await auditUnderRbac(env.plane, operator, async () => {
      await eventually(
        async () => {
          const { items } = await admin.list(Node, { labelSelector: `pool=${pool}` });
          const group = await admin.get(RebootGroupType, { name: pool });
          const granted = items.filter((n) => n.metadata.annotations?.[A.rebootOk] === 'true');
          return granted.length === 1 && group.status ? true : undefined;
        },
        { timeoutMs: 30_000, what: 'one node granted and the group status written' },
      );
    });
    expect(audit.missing, 'requests refused (403): a rule is missing').toEqual([]);
    expect(audit.unused, 'rules no request used').toEqual([]);
  }, 90_000);
});
