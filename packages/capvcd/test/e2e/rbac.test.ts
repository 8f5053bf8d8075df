/**
 * capvcd's RBAC: deploy/rbac.yaml is what `capstan gen rbac` makes of its wiring, and run under its
 * ServiceAccount bound to exactly those rules (real Cluster API on envtest, vcdsim), a cluster with
 * a control plane and a worker behind a load balancer capvcd makes is provisioned and deleted
 * without a refused request, and every rule is used or its non-use explained below.
 */
import { fileURLToPath } from 'node:url';
import { genRbacFile } from '@capstan/cli';
import { HttpTransport } from '@capstan/runtime/client';
import { auditRbac, recordingTransport } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CAPVCD_RBAC,
  type Machine,
  MachineType,
  rbacWiring,
  VCDClusterType,
  VCDMachineTemplateType,
  VCDMachineType,
} from '../../src/index.js';
import { deploy, Harness, SCALED_TIMINGS } from './harness.js';

const ns = 'e2e-rbac';
let h: Harness;

// What this scenario does not reach, and why each grant stays.
const JUSTIFIED = {
  'get namespaces':
    "only a VCDCluster naming another namespace's Secret reads its namespace's labels (credentials.test.ts)",
  'patch events.k8s.io/events': 'a repeated event patches its series; this run records none twice',
  'get infrastructure.cluster.x-k8s.io/vcdmachines':
    'a finalizer JSON patch whose test fails (another writer changed the list) re-reads the object fresh',
  // A MANUAL NIC's IPAM claim and its address; this scenario's NICs are POOL
  // (nic-addressing.test.ts runs them under the in-cluster IPAM provider).
  'get ipam.cluster.x-k8s.io/ipaddressclaims': "a MANUAL NIC's claim, read before it is made",
  'create ipam.cluster.x-k8s.io/ipaddressclaims': 'one claim per MANUAL NIC, owned by its VCDMachine',
  'delete ipam.cluster.x-k8s.io/ipaddressclaims': 'the claims go once the VM is deleted',
  'get ipam.cluster.x-k8s.io/ipaddresses': "the address the IPAM provider made for a MANUAL NIC's claim",
};

beforeAll(async () => {
  h = await Harness.start({ namespace: ns });
  await h.prepareCluster('c1');
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

const running = (m: Machine) => m.status?.phase === 'Running' && m.status.nodeRef !== undefined;
const none = async (list: Promise<{ items: unknown[] }>) =>
  (await list).items.length === 0 ? true : undefined;

describe('the capvcd RBAC', () => {
  it('is generated from the wiring (run `npm run build && npm run gen:rbac -w packages/capvcd`)', async () => {
    const { outcome } = await genRbacFile({
      module: fileURLToPath(new URL('../../src/rbac.ts', import.meta.url)),
      ...CAPVCD_RBAC,
      output: deploy('rbac.yaml'),
      check: true,
      regenerate: 'npm run build && npm run gen:rbac -w packages/capvcd',
    });
    expect(outcome).toBe('unchanged');
  });

  it('provisions and deletes a cluster under its ServiceAccount, and grants nothing unexplained', async () => {
    const kubeConfig = await h.plane.serviceAccountKubeConfig(
      CAPVCD_RBAC.serviceAccount.namespace,
      CAPVCD_RBAC.serviceAccount.name,
    );
    const { transport, requests } = recordingTransport(new HttpTransport(kubeConfig));
    const manager = rbacWiring(
      { transport, metricsBindAddress: '0', healthProbeBindAddress: '0', logLevel: 'silent' },
      SCALED_TIMINGS,
    );
    const stop = new AbortController();
    const run = manager.start(stop.signal);
    try {
      await h.plane.createObjects([
        // No endpoint given: capvcd makes the load balancer and writes the endpoint.
        ...h.clusterObjects('c1'),
        ...h.controlPlaneObjects('c1', 'c1-cp-0'),
        ...h.workerObjects('c1', 'c1-md-0', 1),
      ]);
      await h.wait('2 Machines Running, the template its CapacityKnown condition', async () => {
        const machines = (await h.client.list(MachineType, { namespace: ns })).items;
        const templates = (await h.client.list(VCDMachineTemplateType, { namespace: ns })).items;
        const known = templates.every((t) => t.status?.conditions?.some((c) => c.type === 'CapacityKnown'));
        return machines.length === 2 && machines.every(running) && known ? true : undefined;
      });
      await h.plane.request('DELETE', `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/c1`);
      await h.wait('the VCDCluster and VCDMachines gone', async () =>
        (await none(h.client.list(VCDMachineType, { namespace: ns })))
          ? none(h.client.list(VCDClusterType, { namespace: ns }))
          : undefined,
      );
    } finally {
      stop.abort();
      await run;
      manager.capvcd.connections.close();
    }
    expect(h.vcdObjects().vms).toEqual([]);
    const audit = auditRbac(manager.permissions.list(), requests, JUSTIFIED);
    expect(audit.missing, 'requests refused (403): a rule is missing').toEqual([]);
    expect(audit.unused, 'rules no request used').toEqual([]);
  }, 300_000);
});
