/**
 * KubeadmControlPlane (KCP, the real manager) on vcdsim machines through capvcd, with external
 * etcd (tier a): the guests play kubeadm (envtest's KubeadmGuest: static pods, kubeadm-config,
 * control-plane Nodes through kwok), so KCP initializes the control plane, reports it Available,
 * reads each node's apiserver certificate through kwok's port-forwarding, and scales it 1 → 3 → 1
 * behind the VCD load balancer, leaving no VM behind. The VCDCluster has three failure domains (three
 * VDCs of the org): KCP gives each of the 3 machines its own and each VM lands in its domain's VDC
 * and network (vcdsim's world). A version bump at 3 rolls one machine at a time (maxSurge 1): the
 * pool (sampled through vcdsim) never without a healthy member nor holding a VM going down, at
 * most 4 VMs at once, 3 new VMs after, spread again, none of the old ones left.
 */
import type { Zone } from '@capstan/capvcd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Machine, MachineType, VCDMachineType } from '../../src/index.js';
import type { Harness } from './harness.js';
import { kcpClusterObjects } from './kcp-objects.js';
import {
  kcpSettled,
  patchKcp,
  poolMembers,
  rollVersion,
  startKcpHarness,
  workloadEtcd,
} from './kcp-status.js';

const ns = 'e2e-kcp';
const cluster = 'kcp1';
const zones: Zone[] = [
  { name: 'zone-1', ovdc: 'vdc-a', ovdcNetworkName: 'net-a', controlPlaneZone: true },
  { name: 'zone-2', ovdc: 'vdc-a2', ovdcNetworkName: 'net-a2', controlPlaneZone: true },
  { name: 'zone-3', ovdc: 'vdc-a3', ovdcNetworkName: 'net-a3', controlPlaneZone: true },
];
let h: Harness;

beforeAll(async () => {
  h = await startKcpHarness(ns, cluster);
}, 600_000);
afterAll(() => h?.stop());

/** Each control-plane Machine's failure domain and where vcdsim has its VM (VDC, networks). */
async function placements(machines: Machine[]) {
  const w = h.sim.inspect.world;
  return Promise.all(
    machines.map(async (m) => {
      const vcdMachine = await h.client.get(VCDMachineType, {
        namespace: ns,
        name: m.spec?.infrastructureRef?.name as string,
      });
      const vm = h.sim.inspect.vm(vcdMachine.status?.vmName as string);
      const nics = [...(vm?.nics ?? [])].sort((a, b) => a.index - b.index);
      return {
        domain: m.spec?.failureDomain,
        recorded: vcdMachine.status?.failureDomain,
        vdc: w.vdcs.get(w.vapps.get(vm?.vappId ?? '')?.vdcId ?? '')?.name,
        networks: nics.map((n) => n.network),
      };
    }),
  );
}

/** Every zone once, each VM in its zone's VDC on its zone's network. */
function expectSpread(placed: Awaited<ReturnType<typeof placements>>) {
  expect(placed.map((p) => p.domain).sort()).toEqual(zones.map((z) => z.name));
  for (const p of placed) {
    const zone = zones.find((z) => z.name === p.domain);
    expect(p).toEqual({
      domain: zone?.name,
      recorded: zone?.name,
      vdc: zone?.ovdc,
      networks: [zone?.ovdcNetworkName],
    });
  }
}

const machines = async () => (await h.client.list(MachineType, { namespace: ns })).items;

describe('KubeadmControlPlane on vcdsim machines, external etcd', () => {
  it('initializes a 1-replica control plane and reports it Available', { timeout: 300_000 }, async () => {
    // The workload plane's own etcd is the external etcd; a client certificate from its CA names it.
    const etcd = await workloadEtcd(h);
    await h.plane.createObjects(
      kcpClusterObjects({ namespace: ns, url: h.sim.url }, cluster, etcd, { replicas: 1, zones }),
    );
    const ready = await kcpSettled(h, ns, cluster, 1);
    expect(ready.status?.initialization?.controlPlaneInitialized).toBe(true);
    // What the guest left, as kubeadm init would: the kubeadm-config naming the external etcd, the
    // control-plane Node, and its three static pods (no etcd pod: etcd is external).
    const config = await h.plane.request('GET', '/api/v1/namespaces/kube-system/configmaps/kubeadm-config');
    expect((config.body as { data: Record<string, string> }).data.ClusterConfiguration).toContain(
      h.plane.etcdUrl,
    );
    const [guest] = h.guest?.nodes ?? [];
    expect(guest?.step).toBe('init');
    const pods = await h.plane.request(
      'GET',
      '/api/v1/namespaces/kube-system/pods?labelSelector=tier%3Dcontrol-plane',
    );
    const names = (pods.body as { items: Array<{ metadata: { name: string } }> }).items.map(
      (p) => p.metadata.name,
    );
    expect(names.sort()).toEqual(
      ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'].map((c) => `${c}-${guest?.name}`),
    );
    // KCP read the node's kube-apiserver serving certificate through the apiserver's port-forward to
    // the node (kwok's kubelet server, the guest's PortForward) and recorded its expiry.
    await h.wait('the certificate expiry on the KubeadmConfig', async () => {
      const configs = await h.plane.request(
        'GET',
        `/apis/bootstrap.cluster.x-k8s.io/v1beta2/namespaces/${ns}/kubeadmconfigs`,
      );
      const items = (configs.body as { items: Array<{ metadata: { annotations?: Record<string, string> } }> })
        .items;
      const expiry = items[0]?.metadata.annotations?.['machine.cluster.x-k8s.io/certificates-expiry'];
      return expiry && Date.parse(expiry) > Date.now() ? expiry : undefined;
    });
    await h.wait('the control plane in the load balancer pool', async () =>
      poolMembers(h, ns, cluster).length === 1 ? true : undefined,
    );
  });

  it('scales to 3: each machine in its own failure domain, its VM placed by it, all in the pool', {
    timeout: 600_000,
  }, async () => {
    await patchKcp(h, ns, cluster, { replicas: 3 });
    await kcpSettled(h, ns, cluster, 3, 400_000);
    await h.wait('3 pool members', async () => (poolMembers(h, ns, cluster).length === 3 ? true : undefined));
    expect(h.guest?.nodes.filter((n) => n.step === 'join-control-plane')).toHaveLength(2);
    expectSpread(await placements(await machines()));
  });

  it('a version bump at 3 rolls one machine at a time: the pool always has a healthy member and never a VM going down; at most 4 VMs; no VM leaked', {
    timeout: 600_000,
  }, async () => {
    const { machines: rolled, seen } = await rollVersion(h, ns, cluster, 'v1.35.1', 3, 500_000);
    expect(seen.samples).toBeGreaterThan(50);
    expect(seen.withoutHealthyMember).toBe(0);
    expect({ count: seen.membersDown, first: seen.firstMemberDown }).toEqual({ count: 0, first: undefined });
    expect(seen.mostVms).toBe(4); // maxSurge 1: one VM beyond the three at a time
    expectSpread(await placements(rolled));
    // Each new machine's guest joined with the version KCP uploaded for the upgrade.
    for (const m of rolled)
      expect(h.guest?.nodes.find((n) => n.name === m.status?.nodeRef?.name)).toMatchObject({
        step: 'join-control-plane',
        version: 'v1.35.1',
      });
  });

  it('scales back to 1: machines, VMs and pool members follow, no VM left behind', {
    timeout: 600_000,
  }, async () => {
    await patchKcp(h, ns, cluster, { replicas: 1 });
    await kcpSettled(h, ns, cluster, 1, 400_000);
    await h.wait('1 pool member', async () => (poolMembers(h, ns, cluster).length === 1 ? true : undefined));
    expect(h.vcdObjects().vms).toHaveLength(1);
  });
});
