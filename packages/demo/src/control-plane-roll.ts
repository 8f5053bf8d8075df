/**
 * Act 1's last scene: a Kubernetes version bump on the KubeadmControlPlane, rolled by the real KCP
 * one machine at a time (maxSurge 1) on vcdsim machines, shown in the live Machine table. Every
 * 100 ms the load balancer pool is sampled through vcdsim's inspection: whether some member is UP
 * (its VM on, booted and serving) and whether a member's VM is not powered on (a VM left in the
 * pool while it goes down).
 */
import { CAPI_GROUP } from '@capstan/capvcd';
import { type Client, type Condition, defineResource, type KubeObject } from '@capstan/runtime';
import type { VcdSim } from '@capstan/vcdsim';
import type { ActContext } from './act.js';
import type { MachineWatch } from './machine-watch.js';

const KubeadmControlPlaneType = defineResource<
  KubeObject & {
    spec?: { version?: string; replicas?: number };
    status?: { upToDateReplicas?: number; availableReplicas?: number; conditions?: Condition[] };
  }
>({
  group: `controlplane.${CAPI_GROUP}`,
  version: 'v1beta2',
  kind: 'KubeadmControlPlane',
  plural: 'kubeadmcontrolplanes',
  namespaced: true,
});

/** What the rollout did and what sampling the load balancer saw meanwhile. */
export interface ControlPlaneRollout {
  from: string;
  to: string;
  replicas: number;
  /** Control-plane Machines of before the bump that are gone. */
  replaced: number;
  /** The most control-plane VMs seen at once (maxSurge 1: one beyond `replicas`). */
  mostVms: number;
  /** Pool samples taken. */
  samples: number;
  /** Samples in which no member was UP. */
  withoutHealthyMember: number;
  /** Times a member was seen in the pool while its VM was not powered on (once a member a sample). */
  membersDown: number;
  /** The first of those (`<ip> <VM status>`): what to tell; the rest only add to the count. */
  firstMemberDown?: string;
  elapsedMs: number;
}

/** The KubeadmControlPlane to roll. */
export interface RolloutTarget {
  namespace: string;
  name: string;
  from: string;
  to: string;
  replicas: number;
}

/** Samples vcdsim's load balancer pools every 100 ms into `seen` until the returned stop is called. */
function samplePool(sim: VcdSim, seen: ControlPlaneRollout): () => void {
  const world = sim.inspect.world;
  const timer = setInterval(() => {
    const pool = [...world.pools.values()][0];
    if (!pool) return;
    seen.samples++;
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
  return () => clearInterval(timer);
}

/** Bumps the KubeadmControlPlane to `target.to` and watches it roll; see the file comment. */
export async function rollControlPlane(
  ctx: ActContext,
  admin: Client,
  watch: MachineWatch,
  sim: VcdSim,
  target: RolloutTarget,
): Promise<ControlPlaneRollout> {
  const { namespace, name, replicas } = target;
  const started = Date.now();
  const before = new Set(watch.rows.filter((r) => r.controlPlane).map((r) => r.name));
  const seen: ControlPlaneRollout = {
    ...{ from: target.from, to: target.to, replicas, replaced: 0, mostVms: 0 },
    ...{ samples: 0, withoutHealthyMember: 0, membersDown: 0, elapsedMs: 0 },
  };
  ctx.view.say(
    `  Rolling the control plane: KubeadmControlPlane ${name} ${target.from} → ${target.to} (KCP replaces one machine at a time, maxSurge 1; the load balancer pool sampled every 100 ms)`,
  );
  const stopSampling = samplePool(sim, seen);
  try {
    await admin.patch(KubeadmControlPlaneType, { namespace, name }, 'merge', {
      spec: { version: target.to },
    });
    await ctx.waitUntil(`the control plane rolled onto ${target.to}`, async () => {
      const kcp = await admin.get(KubeadmControlPlaneType, { namespace, name });
      const planes = (await watch.look(`rolling the control plane onto ${target.to}`)).filter(
        (r) => r.controlPlane,
      );
      seen.mostVms = Math.max(seen.mostVms, planes.filter((r) => r.vm !== undefined).length);
      const pool = [...sim.inspect.world.pools.values()][0];
      return (
        kcp.status?.upToDateReplicas === replicas &&
        kcp.status.availableReplicas === replicas &&
        planes.length === replicas &&
        planes.every(
          (r) => !before.has(r.name) && r.phase === 'Running' && r.node && r.version === target.to,
        ) &&
        pool?.members.length === replicas
      );
    });
  } finally {
    stopSampling();
  }
  seen.replaced = [...before].filter((n) => !watch.rows.some((r) => r.name === n)).length;
  seen.elapsedMs = Date.now() - started;
  return seen;
}
