/**
 * `clusterctl move` emulated: a cluster with a managed load balancer is provisioned from
 * management cluster A, paused, its objects copied without status to a fresh management cluster B
 * (owner references rebuilt, as move does), then unpaused there under a new provider. The new
 * provider adopts the VM, vApp, pool, virtual service and VIP and makes no VCD write (#211).
 */
import type { ManifestObject } from '@capstan/envtest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterType, MachineType, VCDClusterType, VCDMachineType } from '../../src/index.js';
import { Harness } from './harness.js';

const ns = 'e2e-move';
let a: Harness;
let b: Harness;

beforeAll(async () => {
  a = await Harness.start({ namespace: ns, taskLatencyMs: 150 });
  await a.prepareCluster('mv1');
  await a.startProvider();
  b = await Harness.start({ namespace: ns, sharedSim: a.sim });
}, 900_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

type Json = ManifestObject & { metadata: Record<string, unknown> & { name: string }; status?: unknown };

const paths: Record<string, string> = {
  Secret: '/api/v1',
  Cluster: '/apis/cluster.x-k8s.io/v1beta2',
  Machine: '/apis/cluster.x-k8s.io/v1beta2',
  KubeadmConfig: '/apis/bootstrap.cluster.x-k8s.io/v1beta2',
  VCDCluster: '/apis/infrastructure.cluster.x-k8s.io/v1beta3',
  VCDMachine: '/apis/infrastructure.cluster.x-k8s.io/v1beta3',
};
const url = (kind: string, name: string) => `${paths[kind]}/namespaces/${ns}/${kind.toLowerCase()}s/${name}`;

/** Copies one object from A to B without status, its owner references pointed at B's objects. */
async function move(kind: string, name: string): Promise<void> {
  const got = await a.plane.request('GET', url(kind, name));
  if (got.status !== 200) throw new Error(`GET ${kind} ${name}: ${JSON.stringify(got.body)}`);
  const { status: _status, ...object } = got.body as Json;
  const {
    uid: _u,
    resourceVersion: _r,
    creationTimestamp: _c,
    managedFields: _m,
    generation: _g,
    ownerReferences,
    ...meta
  } = object.metadata as Record<string, unknown> & {
    ownerReferences?: Array<{ kind: string; name: string; uid: string }>;
  };
  const owners = [];
  for (const ref of ownerReferences ?? []) {
    const target = await b.plane.request('GET', url(ref.kind, ref.name));
    if (target.status === 200) owners.push({ ...ref, uid: (target.body as Json).metadata.uid as string });
  }
  await b.plane.createObjects([
    {
      ...object,
      metadata: { ...meta, ...(owners.length ? { ownerReferences: owners } : {}) },
    } as ManifestObject,
  ]);
}

describe('clusterctl move, emulated', () => {
  it('the provider in the new management cluster adopts everything and makes no VCD write', async () => {
    await a.plane.createObjects([...a.clusterObjects('mv1'), ...a.controlPlaneObjects('mv1', 'mv1-cp-0')]);
    const machine = await a.wait(
      'the control plane Running, in the load balancer',
      async () => {
        const m = await a.client.get(MachineType, { namespace: ns, name: 'mv1-cp-0' });
        const pool = a.vcdObjects().pools[0];
        return m.status?.nodeRef && pool?.members.length === 1 ? m : undefined;
      },
      240_000,
    );
    const before = a.vcdObjects();
    await a.client.patch(ClusterType, { namespace: ns, name: 'mv1' }, 'merge', { spec: { paused: true } });
    await a.wait('both of ours Paused', async () => {
      const c = await a.client.get(VCDClusterType, { namespace: ns, name: 'mv1' });
      const m = await a.client.get(VCDMachineType, { namespace: ns, name: 'mv1-cp-0' });
      const paused = (o: typeof c | typeof m) =>
        o.status?.conditions?.some((x) => x.type === 'Paused' && x.status === 'True');
      return paused(c) && paused(m) ? true : undefined;
    });
    await a.provider?.stop();

    const bootstrapSecret = machine.spec?.bootstrap?.dataSecretName as string;
    for (const [kind, name] of [
      ['Secret', 'mv1-vcd'],
      ['Secret', 'mv1-kubeconfig'],
      ['Cluster', 'mv1'],
      ['VCDCluster', 'mv1'],
      ['Machine', 'mv1-cp-0'],
      ['KubeadmConfig', 'mv1-cp-0'],
      ['VCDMachine', 'mv1-cp-0'],
      ['Secret', bootstrapSecret],
    ] as const) {
      await move(kind, name);
    }
    await b.startProvider();
    const seq = b.lastSeq();
    await b.client.patch(ClusterType, { namespace: ns, name: 'mv1' }, 'merge', { spec: { paused: false } });
    await b.wait(
      'both adopted in B',
      async () => {
        const c = await b.client.get(VCDClusterType, { namespace: ns, name: 'mv1' });
        const m = await b.client.get(VCDMachineType, { namespace: ns, name: 'mv1-cp-0' });
        return c.status?.initialization?.provisioned && m.status?.initialization?.provisioned
          ? true
          : undefined;
      },
      240_000,
    );
    expect(b.writesSince(seq)).toEqual([]);
    const after = b.vcdObjects();
    expect(after.vms.map((v) => v.id)).toEqual(before.vms.map((v) => v.id));
    expect(after.vapps.map((v) => v.id)).toEqual(before.vapps.map((v) => v.id));
    expect(after.pools.map((p) => [p.id, p.members.map((m) => m.ipAddress)])).toEqual(
      before.pools.map((p) => [p.id, p.members.map((m) => m.ipAddress)]),
    );
    expect(after.virtualServices.map((v) => [v.id, v.virtualIpAddress])).toEqual(
      before.virtualServices.map((v) => [v.id, v.virtualIpAddress]),
    );
    const moved = await b.client.get(VCDMachineType, { namespace: ns, name: 'mv1-cp-0' });
    expect(moved.spec.providerID).toBe(machine.spec?.providerID);
  }, 600_000);
});
