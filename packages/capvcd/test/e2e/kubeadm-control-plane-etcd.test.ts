/**
 * KubeadmControlPlane with stacked (managed) etcd on vcdsim machines (tier b): each control-plane
 * guest runs a real etcd member named after its Node, TLS from the cluster's etcd CA (the one KCP
 * made), reached by KCP through the apiserver's port-forward to the node's `etcd-<node>` pod
 * (kwok's kubelet server). Scaling 1 → 3 → 1, the member list (read through the etcd API) follows
 * the Machines: kubeadm join adds a member, KCP removes one on scale-down. The VCDCluster asks
 * for control-plane anti-affinity: VCD's rule names exactly the Machines' VMs at 3, through a
 * remediation (the replaced VM leaves it, the new one joins), and goes at 1 (VCD wants two VMs
 * in a rule).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { affinityRuleName, MachineType, VCDMachineType } from '../../src/index.js';
import type { Harness } from './harness.js';
import { kcpClusterObjects } from './kcp-objects.js';
import { kcpCondition, kcpSettled, patchKcp, powerOffInVcd, startKcpHarness } from './kcp-status.js';

const ns = 'e2e-kcp-etcd';
const cluster = 'kcp2';
let h: Harness;

beforeAll(async () => {
  h = await startKcpHarness(ns, cluster);
}, 600_000);
afterAll(() => h?.stop());

/** The control-plane Machines' node names, sorted. */
async function nodeNames(): Promise<string[]> {
  const machines = (await h.client.list(MachineType, { namespace: ns })).items;
  return machines.map((m) => m.status?.nodeRef?.name ?? `(${m.metadata.name}: no node)`).sort();
}

/** Waits until etcd's member list (through a member's API) names exactly the Machines' nodes. */
async function membersFollowMachines(count: number): Promise<string[]> {
  return h.wait(`${count} etcd members named after the Machines' nodes`, async () => {
    const [members, nodes] = [(await h.guest?.etcd.memberList())?.sort(), await nodeNames()];
    return members?.length === count && JSON.stringify(members) === JSON.stringify(nodes)
      ? members
      : undefined;
  });
}

/** Waits until the control plane's anti-affinity rule names exactly its Machines' VMs (no rule for one). */
async function ruleFollowsMachines(count: number): Promise<string[]> {
  const name = affinityRuleName(ns, cluster, { controlPlane: true });
  return h.wait(`the anti-affinity rule over the ${count} control-plane VMs`, async () => {
    const machines = (await h.client.list(MachineType, { namespace: ns })).items;
    const vms = await Promise.all(
      machines.map(async (m) => {
        const ref = { namespace: ns, name: m.spec?.infrastructureRef?.name as string };
        const providerID = (await h.client.get(VCDMachineType, ref)).spec.providerID ?? '';
        return /urn:vcloud:vm:(.+)$/.exec(providerID)?.[1] ?? `(${m.metadata.name}: no VM)`;
      }),
    );
    const rule = [...h.sim.inspect.world.affinityRules.values()].find((r) => r.name === name);
    const members = [...(rule?.vmIds ?? [])].sort();
    const want = count >= 2 ? vms.sort() : [];
    const right = rule === undefined || (rule.mandatory && rule.polarity === 'Anti-Affinity');
    return machines.length === count && right && JSON.stringify(members) === JSON.stringify(want)
      ? members
      : undefined;
  });
}

/**
 * A MachineHealthCheck on the control plane; one machine's VM is powered off behind capvcd's back
 * (its guest goes down: etcd member stopped, Node no longer reporting). KCP remediates: the machine
 * is deleted (its etcd member removed, its VM deleted) and a new one joins.
 */
async function remediatesPoweredOffMachine(): Promise<void> {
  await h.plane.createObjects([
    {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineHealthCheck',
      metadata: { name: `${cluster}-control-plane`, namespace: ns },
      spec: {
        clusterName: cluster,
        selector: { matchLabels: { 'cluster.x-k8s.io/control-plane': '' } },
        checks: {
          nodeStartupTimeoutSeconds: 600,
          unhealthyNodeConditions: [
            { type: 'Ready', status: 'Unknown', timeoutSeconds: 5 },
            { type: 'Ready', status: 'False', timeoutSeconds: 5 },
          ],
        },
      },
    },
  ]);
  const victim = (await h.client.list(MachineType, { namespace: ns })).items[0];
  const node = victim?.status?.nodeRef?.name as string;
  const vmName = h.vcdObjects().vms.find((vm) => vm.name === node)?.name ?? node;
  await powerOffInVcd(h, vmName);
  await h.guest?.powerOff(node);
  await h.wait(
    'the powered-off machine replaced',
    async () => {
      const names = await nodeNames();
      const vms = h.vcdObjects().vms.map((vm) => vm.name);
      return names.length === 3 && !names.includes(node) && !vms.includes(vmName) && vms.length === 3
        ? names
        : undefined;
    },
    400_000,
  );
  await kcpSettled(h, ns, cluster, 3, 300_000);
  // KCP removed the dead member (MemberRemove) and the new machine's guest joined its own.
  expect(await membersFollowMachines(3)).not.toContain(node);
}

describe('KubeadmControlPlane with stacked etcd', () => {
  it('initializes with one etcd member and reports the etcd cluster healthy', {
    timeout: 300_000,
  }, async () => {
    await h.plane.createObjects(
      kcpClusterObjects({ namespace: ns, url: h.sim.url }, cluster, undefined, {
        replicas: 1,
        antiAffinity: { controlPlane: 'Required' },
      }),
    );
    const ready = await kcpSettled(h, ns, cluster, 1);
    await membersFollowMachines(1);
    expect(await ruleFollowsMachines(1)).toEqual([]);
    // KCP reached the member through the port-forward and found it healthy.
    const healthy = await h.wait('EtcdClusterHealthy', async () => {
      const k = await kcpSettled(h, ns, cluster, 1);
      return kcpCondition(k, 'EtcdClusterHealthy')?.status === 'True' ? k : undefined;
    });
    expect(healthy.status?.initialization?.controlPlaneInitialized).toBe(true);
    expect(ready.status?.availableReplicas).toBe(1);
  });

  it('scales to 3, remediates a VM powered off behind capvcd’s back, back to 1: the etcd member list follows', {
    timeout: 900_000,
  }, async () => {
    await patchKcp(h, ns, cluster, { replicas: 3 });
    await kcpSettled(h, ns, cluster, 3, 400_000);
    await membersFollowMachines(3);
    expect(await ruleFollowsMachines(3)).toHaveLength(3);
    await remediatesPoweredOffMachine();
    expect(await ruleFollowsMachines(3)).toHaveLength(3);
    await patchKcp(h, ns, cluster, { replicas: 1 });
    await kcpSettled(h, ns, cluster, 1, 400_000);
    const [member] = await membersFollowMachines(1);
    expect(h.guest?.etcd.running).toEqual([member]);
    expect(await ruleFollowsMachines(1)).toEqual([]);
  });
});
