/**
 * Credentials scoped and held, under real Cluster API on envtest with vcdsim: a VCDCluster naming a
 * Secret in another namespace is refused with a condition and makes no VCD call until a
 * cluster-scoped VCDClusterIdentity allows its namespace; the Secret it uses gets our finalizer
 * (and, in its own namespace, an owner reference and clusterctl's move label), which keeps a
 * deleted Secret until the cluster's VCD objects are gone.
 */
import { Namespace, Secret } from '@capstan/runtime/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CREDENTIALS_FINALIZER,
  loadBalancerName,
  MOVE_LABEL,
  VCDClusterIdentityType,
  VCDClusterType,
} from '../../src/index.js';
import { Harness } from './harness.js';

const ns = 'e2e-cred';
const vault = 'e2e-cred-vault';
let h: Harness;

beforeAll(async () => {
  h = await Harness.start({ namespace: ns, taskLatencyMs: 100 });
  await h.plane.createObjects([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: vault } },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'shared-vcd', namespace: vault },
      stringData: { username: 'alice', password: 'alice-password', 'ca.crt': h.sim.caPem },
    },
  ]);
  await h.prepareCluster('own');
  await h.startProvider();
}, 600_000);
afterAll(async () => {
  await h?.stop();
});

const readyOf = async (name: string) =>
  (await h.client.get(VCDClusterType, { namespace: ns, name })).status?.conditions?.find(
    (c) => c.type === 'Ready',
  );
const sharedSecret = () => h.client.get(Secret, { namespace: vault, name: 'shared-vcd' });
const crossObjects = () =>
  h.clusterObjects('cross').map((o) =>
    o.kind === 'VCDCluster'
      ? {
          ...o,
          spec: {
            ...(o.spec as Record<string, unknown>),
            userContext: { secretRef: { namespace: vault, name: 'shared-vcd' } },
          },
        }
      : o,
  );

describe('credentials from another namespace', () => {
  it('are refused with a condition, and no VCD call is made, without an identity', async () => {
    await h.plane.createObjects(crossObjects());
    const ready = await h.wait('CredentialsNotAllowed', async () => {
      const c = await readyOf('cross');
      return c?.reason === 'CredentialsNotAllowed' ? c : undefined;
    });
    expect(ready.status).toBe('False');
    expect(ready.message).toContain(`${vault}/shared-vcd`);
    expect(ready.message).toContain('no VCDClusterIdentity names it');
    expect(h.sim.inspect.requests()).toEqual([]);
    expect((await sharedSecret()).metadata.finalizers ?? []).toEqual([]);
  }, 120_000);

  it('are refused by an identity that does not select the namespace', async () => {
    await h.client.create(VCDClusterIdentityType, {
      metadata: { name: 'shared' },
      spec: {
        secretRef: { namespace: vault, name: 'shared-vcd' },
        allowedNamespaces: { selector: { matchLabels: { 'vcd.example/tenant': 'a' } } },
      },
    });
    await h.wait('the identity named in the refusal', async () =>
      (await readyOf('cross'))?.message?.includes('VCDClusterIdentity shared does not select')
        ? true
        : undefined,
    );
    expect(h.sim.inspect.requests()).toEqual([]);
  }, 120_000);

  it('are used once the identity selects the namespace, and held by a finalizer only', async () => {
    await h.client.patch(Namespace, { name: ns }, 'merge', {
      metadata: { labels: { 'vcd.example/tenant': 'a' } },
    });
    // A namespace's labels are not watched: touching the identity wakes the VCDCluster at once.
    await h.client.patch(VCDClusterIdentityType, { name: 'shared' }, 'merge', {
      metadata: { annotations: { touched: 'yes' } },
    });
    await h.wait('the VCDCluster provisioned with the shared credentials', async () =>
      (await h.client.get(VCDClusterType, { namespace: ns, name: 'cross' })).status?.initialization
        ?.provisioned
        ? true
        : undefined,
    );
    expect(h.sim.inspect.requests().length).toBeGreaterThan(0);
    const secret = await sharedSecret();
    expect(secret.metadata.finalizers).toEqual([CREDENTIALS_FINALIZER]);
    // No owner reference across namespaces (the garbage collector ignores them), no move label.
    expect(secret.metadata.ownerReferences ?? []).toEqual([]);
    expect(secret.metadata.labels?.[MOVE_LABEL]).toBeUndefined();
  }, 180_000);
});

describe('the credentials Secret of the cluster’s own namespace', () => {
  it('gets an owner reference, the move label and a finalizer', async () => {
    await h.plane.createObjects(h.clusterObjects('own'));
    const vcdCluster = await h.wait('the VCDCluster provisioned', async () => {
      const c = await h.client.get(VCDClusterType, { namespace: ns, name: 'own' });
      return c.status?.initialization?.provisioned ? c : undefined;
    });
    const secret = await h.client.get(Secret, { namespace: ns, name: 'own-vcd' });
    expect(secret.metadata.labels?.[MOVE_LABEL]).toBe('');
    expect(secret.metadata.finalizers).toEqual([CREDENTIALS_FINALIZER]);
    expect(secret.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid])).toEqual([
      ['VCDCluster', 'own', vcdCluster.metadata.uid],
    ]);
  }, 180_000);

  it('deleted before the cluster, stays until the cluster’s VCD objects are gone', async () => {
    await h.client.delete(Secret, { namespace: ns, name: 'own-vcd' });
    const terminating = await h.client.get(Secret, { namespace: ns, name: 'own-vcd' });
    expect(terminating.metadata.deletionTimestamp).toBeDefined();
    await h.plane.request('DELETE', `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/own`);
    // The load balancer is removed with the terminating Secret's credentials; then the Secret goes.
    await h.wait(
      'the Secret gone',
      async () =>
        (await h.client.list(Secret, { namespace: ns })).items.some((s) => s.metadata.name === 'own-vcd')
          ? undefined
          : true,
      240_000,
    );
    // The Secret went after the cluster's VCD objects: read VCD first. capvcd releases the Secret
    // just before it lets the VCDCluster go, so that one may still be listed for a moment.
    const lbNames = h.vcdObjects().virtualServices.map((v) => v.name);
    expect(lbNames).toEqual([loadBalancerName(ns, 'cross')]);
    await h.wait(
      'only the other VCDCluster left',
      async () => {
        const names = (await h.client.list(VCDClusterType, { namespace: ns })).items.map(
          (c) => c.metadata.name,
        );
        return names.length === 1 && names[0] === 'cross' ? true : undefined;
      },
      60_000,
    );
    // The other cluster still holds the shared Secret.
    expect((await sharedSecret()).metadata.finalizers).toEqual([CREDENTIALS_FINALIZER]);
  }, 300_000);

  it('a shared Secret is released, not deleted, when its last cluster is gone', async () => {
    await h.plane.request('DELETE', `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/clusters/cross`);
    await h.wait(
      'the shared Secret released',
      async () => (((await sharedSecret()).metadata.finalizers ?? []).length === 0 ? true : undefined),
      240_000,
    );
    expect(h.vcdObjects()).toEqual({ vms: [], vapps: [], pools: [], virtualServices: [] });
    // Released, not deleted: the user's Secret outlives the cluster.
    expect((await sharedSecret()).metadata.ownerReferences ?? []).toEqual([]);
  }, 300_000);
});
