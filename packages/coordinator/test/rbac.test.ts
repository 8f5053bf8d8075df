/**
 * The coordinator's RBAC: deploy/rbac.yaml is what `capstan gen rbac` makes of its wiring, and
 * run under a ServiceAccount bound to exactly those rules (envtest), a round that grants a reboot
 * (with PDB-aware grants and a blockingPods gate on) is never refused, and every rule is used or
 * its non-use explained below.
 */
import { fileURLToPath } from 'node:url';
import { genRbacFile } from '@capstan/cli';
import { readManifests, serviceAccountUnder } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { capstanProtocol } from '@capstan/reboot-protocol';
import { Client } from '@capstan/runtime';
import { HttpTransport, Node } from '@capstan/runtime/client';
import { auditRbac, eventually, recordingTransport } from '@capstan/runtime/testing';
import { describe, expect, it } from 'vitest';
import { COORDINATOR_RBAC, type RebootGroup, RebootGroupType, rbacWiring } from '../src/index.js';

const rbacFile = fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url));
const env = useControlPlane('coord-rbac');
const A = capstanProtocol.annotations;

/** Grants this test's scenario does not reach, and why each stays. */
const JUSTIFIED = {
  'patch events.k8s.io/events': 'a repeated event patches its series; one round records none twice',
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

    const kubeConfig = await serviceAccountUnder(
      env.plane,
      COORDINATOR_RBAC.serviceAccount,
      readManifests(rbacFile),
    );
    const { transport, requests } = recordingTransport(new HttpTransport(kubeConfig));
    const manager = rbacWiring(
      { transport, metricsBindAddress: '0', healthProbeBindAddress: '0', logLevel: 'silent' },
      { nodeSelector: `pool=${pool}` },
    );
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      await eventually(
        async () => {
          const { items } = await admin.list(Node, { labelSelector: `pool=${pool}` });
          const group = await admin.get(RebootGroupType, { name: pool });
          const granted = items.filter((n) => n.metadata.annotations?.[A.rebootOk] === 'true');
          return granted.length === 1 && group.status ? true : undefined;
        },
        { timeoutMs: 30_000, what: 'one node granted and the group status written' },
      );
    } finally {
      stop.abort();
      await running;
    }
    const audit = auditRbac(manager.permissions.list(), requests, JUSTIFIED);
    expect(audit.missing, 'requests refused (403): a rule is missing').toEqual([]);
    expect(audit.unused, 'rules no request used').toEqual([]);
  }, 90_000);
});
