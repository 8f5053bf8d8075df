/**
 * Reading and steering a KubeadmControlPlane in the e2e harness: its status, scaling it, waiting
 * until it settles (replicas Available, as many VMs), and the load balancer pool's members.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadBalancerName, type Machine, MachineType } from '../../src/index.js';
import { Harness } from './harness.js';
import { CONTROL_PLANE, type ExternalEtcd } from './kcp-objects.js';

/** Moved to ./vcd-tenant.ts, beside the other acts of a tenant user in VCD. */
export { powerOffInVcd } from './vcd-tenant.js';

interface Condition {
  type: string;
  status: string;
  message?: string;
}

/** The KubeadmControlPlane status fields the tests read. */
export interface Kcp {
  spec?: { version?: string };
  status?: {
    replicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    upToDateReplicas?: number;
    initialization?: { controlPlaneInitialized?: boolean };
    conditions?: Condition[];
  };
}

const path = (ns: string, name: string) =>
  `/apis/${CONTROL_PLANE}/v1beta2/namespaces/${ns}/kubeadmcontrolplanes/${name}`;

export async function getKcp(h: Harness, ns: string, name: string): Promise<Kcp> {
  const answer = await h.plane.request('GET', path(ns, name));
  if (answer.status !== 200)
    throw new Error(`GET KubeadmControlPlane ${name}: ${JSON.stringify(answer.body)}`);
  return answer.body as Kcp;
}

/** Merge-patches the KubeadmControlPlane's spec (replicas, version). */
export async function patchKcp(h: Harness, ns: string, name: string, spec: Record<string, unknown>) {
  const answer = await h.plane.request('PATCH', path(ns, name), { spec }, 'application/merge-patch+json');
  if (answer.status !== 200)
    throw new Error(`PATCH KubeadmControlPlane ${name}: ${JSON.stringify(answer.body)}`);
}

export const kcpCondition = (k: Kcp, type: string) => k.status?.conditions?.find((c) => c.type === type);

const kcpText = (k: Kcp) =>
  `KCP replicas ${k.status?.replicas}, ready ${k.status?.readyReplicas}, available ${k.status?.availableReplicas}; ` +
  (k.status?.conditions ?? []).map((c) => `${c.type}=${c.status} ${c.message ?? ''}`).join('; ');

/** Waits until the KCP has `replicas` machines, all available, `Available` true, and as many VMs. */
export async function kcpSettled(
  h: Harness,
  ns: string,
  name: string,
  replicas: number,
  timeoutMs = 240_000,
) {
  let last: Kcp | undefined;
  try {
    return await h.wait(
      `KCP ${name} settled at ${replicas} Available replicas`,
      async () => {
        last = await getKcp(h, ns, name);
        const s = last.status;
        const available = kcpCondition(last, 'Available')?.status === 'True';
        const vms = h.vcdObjects().vms.length;
        return available && s?.replicas === replicas && s.availableReplicas === replicas && vms === replicas
          ? last
          : undefined;
      },
      timeoutMs,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${last ? kcpText(last) : 'no KCP read'}`);
  }
}

/** The IPs of the cluster's load balancer pool members in vcdsim. */
export const poolMembers = (h: Harness, ns: string, name: string): string[] =>
  (h.vcdObjects().pools.find((p) => p.name === loadBalancerName(ns, name))?.members ?? []).map(
    (m) => m.ipAddress,
  );

/** The workload plane's own etcd as the cluster's external etcd, with a client certificate its CA signs. */
export async function workloadEtcd(h: Harness): Promise<ExternalEtcd> {
  const client = await h.plane.userKubeConfig('apiserver-etcd-client');
  const user = client.getCurrentUser();
  return {
    endpoint: h.plane.etcdUrl,
    caPem: readFileSync(join(h.plane.info.workDir, 'pki', 'ca.crt'), 'utf8'),
    certPem: Buffer.from(user?.certData ?? '', 'base64').toString(),
    keyPem: Buffer.from(user?.keyData ?? '', 'base64').toString(),
  };
}

/** A harness for one KubeadmControlPlane cluster: KCP, kwok, kubeadm guests, the provider running. */
export async function startKcpHarness(namespace: string, cluster: string): Promise<Harness> {
  const h = await Harness.start({ namespace, kubeadmControlPlane: true });
  await h.prepareCluster(cluster);
  await h.startProvider();
  return h;
}

/** What sampling the load balancer during a rollout saw. */
export interface PoolSamples {
  samples: number;
  /** Samples in which no member was UP (no VM behind the pool serving). */
  withoutHealthyMember: number;
  /** Times a member was seen in the pool while its VM was not powered on (once a member a sample). */
  membersDown: number;
  /** The first of those (`<ip> <vm status>`). */
  firstMemberDown?: string;
  /** The most control-plane VMs seen at once. */
  mostVms: number;
}

/**
 * Samples the cluster's pool through vcdsim's inspection (every 100 ms) until `stop`: whether some
 * member is UP (enabled, its VM powered on, booted and serving, as vcdsim's health says) and
 * whether any member's VM is not powered on (a member left in the pool while its VM goes down).
 */
export function samplePool(h: Harness, ns: string, name: string): { stop(): PoolSamples } {
  const seen: PoolSamples = { samples: 0, withoutHealthyMember: 0, membersDown: 0, mostVms: 0 };
  const world = h.sim.inspect.world;
  const timer = setInterval(() => {
    const pool = h.vcdObjects().pools.find((p) => p.name === loadBalancerName(ns, name));
    if (!pool) return;
    seen.samples++;
    seen.mostVms = Math.max(seen.mostVms, h.vcdObjects().vms.length);
    let up = 0;
    for (const m of pool.members) {
      const vm = world.vmHoldingIp(m.ipAddress);
      const running = vm?.status === 4 && vm.toolsRunning;
      if (m.enabled && running && vm?.serving) up++;
      if (!running && seen.membersDown++ === 0)
        seen.firstMemberDown = `${m.ipAddress} ${vm ? `VM ${vm.name} status ${vm.status}` : 'no VM'}`;
    }
    if (up === 0) seen.withoutHealthyMember++;
  }, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return seen;
    },
  };
}

/**
 * Bumps the KubeadmControlPlane to `version` and waits until it has rolled: `replicas` up-to-date
 * machines Available with their nodes, as many VMs and none of those from before, all in the pool;
 * the pool sampled throughout.
 */
export async function rollVersion(
  h: Harness,
  ns: string,
  name: string,
  version: string,
  replicas: number,
  timeoutMs = 300_000,
): Promise<{ machines: Machine[]; seen: PoolSamples }> {
  const before = new Set(h.vcdObjects().vms.map((vm) => vm.name));
  const sampler = samplePool(h, ns, name);
  await patchKcp(h, ns, name, { version });
  const machines = await h.wait(
    `the control plane rolled onto ${version}`,
    async () => {
      const k = await getKcp(h, ns, name);
      const list = (await h.client.list(MachineType, { namespace: ns })).items;
      const vms = h.vcdObjects().vms;
      const done =
        k.status?.upToDateReplicas === replicas &&
        k.status.availableReplicas === replicas &&
        list.length === replicas &&
        list.every((m) => m.status?.nodeRef) &&
        vms.length === replicas &&
        vms.every((vm) => !before.has(vm.name));
      return done ? list : undefined;
    },
    timeoutMs,
  );
  await h.wait('the new machines in the pool', async () =>
    poolMembers(h, ns, name).length === replicas ? true : undefined,
  );
  return { machines, seen: sampler.stop() };
}
