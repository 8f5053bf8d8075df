/**
 * The real `clusterctl move` (v1.14.2) between two envtest management clusters, each running real
 * Cluster API (core + CABPK) and capvcd, both against the same vcdsim. The provider inventory is
 * written as `clusterctl init` writes it (clusterctl-inventory.ts says why init itself is not run).
 * A cluster with a managed load balancer, provisioned from A, is moved while both providers run:
 * clusterctl pauses it, copies its object graph (the credentials Secret with it, by its owner
 * reference and move label), deletes it from A and unpauses it on B. B's capvcd adopts the VM,
 * vApp, pool, virtual service and VIP: no VCD write from the move on, no VM made or deleted, no
 * second VIP, the Machine Running on B.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type ClusterctlAssets, resolveAssets } from '@capstan/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOVE_LABEL } from '../../src/api/keys.js';
import { ClusterType, MachineType, VCDClusterType, VCDMachineType } from '../../src/index.js';
import { inventory, recordInventory } from './clusterctl-inventory.js';
import { Harness } from './harness.js';

const run = promisify(execFile);
const ns = 'e2e-move';
const home = mkdtempSync(join(tmpdir(), 'capvcd-move-home-'));
let clusterctl: ClusterctlAssets;
let a: Harness;
let b: Harness;

beforeAll(async () => {
  clusterctl = (await resolveAssets({ with: ['clusterctl'] })).clusterctl as ClusterctlAssets;
  a = await Harness.start({ namespace: ns, taskLatencyMs: 150 });
  b = await Harness.start({ namespace: ns, sharedSim: a.sim });
  for (const h of [a, b])
    await recordInventory(h.plane, clusterctl.clusterctlCrdDir, inventory('v0.1.0', false));
  await a.prepareCluster('mv1');
  await a.startProvider();
  await b.startProvider();
}, 900_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
  rmSync(home, { recursive: true, force: true });
});

/** The Cluster's v1beta2 `ControlPlaneInitialized` condition, which `clusterctl move` checks. */
const controlPlaneInitialized = async (h: Harness, name: string) => {
  const res = await h.plane.request(
    'GET',
    `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/${name}`,
  );
  const body = res.body as { status?: { conditions?: Array<{ type: string; status: string }> } };
  return (
    body.status?.conditions?.some((c) => c.type === 'ControlPlaneInitialized' && c.status === 'True') === true
  );
};
const gone = async (h: Harness, path: string) => (await h.plane.request('GET', path)).status === 404;

describe('clusterctl move, for real', () => {
  it('moves the cluster and its credentials; B adopts everything with no VCD write', async () => {
    await a.plane.createObjects([...a.clusterObjects('mv1'), ...a.controlPlaneObjects('mv1', 'mv1-cp-0')]);
    // clusterctl refuses to move a cluster whose ControlPlaneInitialized condition is not True;
    // with no controlPlaneRef, Cluster API sets it a reconcile after the Machine gets its nodeRef.
    const machine = await a.wait(
      'the control plane Running, in the load balancer, the Cluster initialized',
      async () => {
        const m = await a.client.get(MachineType, { namespace: ns, name: 'mv1-cp-0' });
        const initialized = await controlPlaneInitialized(a, 'mv1');
        const pool = a.vcdObjects().pools[0];
        return m.status?.phase === 'Running' && initialized && pool?.members.length === 1 ? m : undefined;
      },
      240_000,
    );
    const before = a.vcdObjects();
    const seq = a.lastSeq();

    const { stdout, stderr } = await run(
      clusterctl.binary,
      [
        'move',
        '--kubeconfig',
        a.plane.kubeconfigPath,
        '--to-kubeconfig',
        b.plane.kubeconfigPath,
        '-n',
        ns,
        '-v',
        '1',
      ],
      { env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: home }, timeout: 300_000 },
    );
    expect(`${stdout}${stderr}`).toMatch(/Moving Cluster API objects/);

    // Gone from A, on B: the cluster's objects and its credentials Secret.
    const secretPath = `/api/v1/namespaces/${ns}/secrets/mv1-vcd`;
    expect(await gone(a, secretPath)).toBe(true);
    expect(await gone(a, `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/mv1`)).toBe(true);
    const secret = await b.plane.request('GET', secretPath);
    expect(secret.status).toBe(200);
    const moved = secret.body as {
      metadata: { labels?: Record<string, string>; ownerReferences?: Array<{ kind: string; uid: string }> };
    };
    const vcdCluster = await b.client.get(VCDClusterType, { namespace: ns, name: 'mv1' });
    expect(moved.metadata.labels?.[MOVE_LABEL]).toBeDefined();
    expect(moved.metadata.ownerReferences?.find((o) => o.kind === 'VCDCluster')?.uid).toBe(
      vcdCluster.metadata.uid,
    );

    const running = await b.wait(
      'the Machine Running on B, both of ours provisioned and unpaused',
      async () => {
        const cluster = await b.client.get(ClusterType, { namespace: ns, name: 'mv1' });
        const c = await b.client.get(VCDClusterType, { namespace: ns, name: 'mv1' });
        const vm = await b.client.get(VCDMachineType, { namespace: ns, name: 'mv1-cp-0' });
        const m = await b.client.get(MachineType, { namespace: ns, name: 'mv1-cp-0' });
        const unpaused = [c, vm].every((o) =>
          o.status?.conditions?.some((x) => x.type === 'Paused' && x.status === 'False'),
        );
        return !cluster.spec?.paused && unpaused && m.status?.phase === 'Running' ? m : undefined;
      },
      240_000,
    );
    expect(running.spec?.providerID).toBe(machine.spec?.providerID);
    // Nothing written to VCD since the move began (both providers ran throughout), nothing new.
    expect(a.writesSince(seq)).toEqual([]);
    const after = b.vcdObjects();
    expect(after.vms.map((v) => v.id)).toEqual(before.vms.map((v) => v.id));
    expect(after.vapps.map((v) => v.id)).toEqual(before.vapps.map((v) => v.id));
    expect(after.pools.map((p) => [p.id, p.members.map((m) => m.ipAddress)])).toEqual(
      before.pools.map((p) => [p.id, p.members.map((m) => m.ipAddress)]),
    );
    expect(after.virtualServices.map((v) => [v.id, v.virtualIpAddress])).toEqual(
      before.virtualServices.map((v) => [v.id, v.virtualIpAddress]),
    );
    expect(after.virtualServices).toHaveLength(1);
  }, 600_000);
});
