/**
 * Act 1, provision: a management cluster with real Cluster API (core + kubeadm bootstrap) and
 * capvcd under its own Manager and ServiceAccount; vcdsim over HTTPS as the cloud; a workload
 * control plane (kube-scheduler, kube-controller-manager, kwok) whose kubeconfig Secret Cluster API
 * reads. Each VM's boot hook plays its guest (envtest's KubeadmGuest): it reads guestinfo as
 * cloud-init would and does what its kubeadm step leaves in the workload cluster (the kwok Node with
 * its providerID; a control plane's static pods and kubeadm-config); Cluster API then sets the
 * nodeRef and the Machine runs. Last, a version bump rolls the KubeadmControlPlane
 * (`control-plane-roll.ts`).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  addCapvcd,
  CAPI_GROUP,
  CAPI_VERSION,
  CAPVCD_MANAGER,
  EVENT_SOURCE,
  providerIdFor,
  VCDClusterType,
} from '@capstan/capvcd';
import { ControlPlane, KubeadmGuest, readManifests, startWorkloadCluster } from '@capstan/envtest';
import { Client, type Condition, defineResource, type KubeObject, Manager } from '@capstan/runtime';
import { HttpTransport } from '@capstan/runtime/client';
import { type BootedVm, startVcdSim, type VcdSim } from '@capstan/vcdsim';
import type { ActContext } from './act.js';
import { clusterObjects, controlPlaneName } from './cluster-objects.js';
import { type ControlPlaneRollout, rollControlPlane } from './control-plane-roll.js';
import { MachineWatch } from './machine-watch.js';
import type { MachineRow } from './tables.js';

const capiKind = (kind: string, plural: string) =>
  defineResource<KubeObject & { status?: { conditions?: Condition[] } }>({
    group: CAPI_GROUP,
    version: CAPI_VERSION,
    kind,
    plural,
    namespaced: true,
  });
const MachineDeploymentType = capiKind('MachineDeployment', 'machinedeployments');
const MachineSetType = capiKind('MachineSet', 'machinesets');

/** A Node a guest registered in the workload cluster. */
export interface RegisteredNode {
  name: string;
  controlPlane: boolean;
  providerID: string;
}

/** What act 1 found, for the summary. */
export interface ClusterFacts {
  machines: MachineRow[];
  /** Requests vcdsim served, and how many of them wrote (not GET, not logins). */
  vcdCalls: number;
  vcdWrites: number;
  /** VCD tasks the writes started. */
  vcdTasks: number;
  /** The load balancer's virtual IP and how many members its pool has. */
  loadBalancer: { vip: string; members: number } | undefined;
  nodes: RegisteredNode[];
  /** Errors the guests' boot hooks met. */
  guestErrors: string[];
  /** The control plane's version bump, once the cluster ran. */
  rollout: ControlPlaneRollout | undefined;
}

/** The provisioned cluster: its facts, and its workload control plane (still running). */
export interface ProvisionedCluster {
  facts: ClusterFacts;
  workload: ControlPlane;
}

/** The cluster act 1 asks for. */
export interface ClusterPlan {
  /** KubeadmControlPlane replicas. */
  controlPlanes: number;
  workers: number;
  /** OS image the guests boot (`status.nodeInfo.osImage`). */
  osImage: string;
}

const NAMESPACE = 'demo-clusters';
const CLUSTER = 'capstan-demo';
const KUBERNETES_VERSION = 'v1.35.0';
const CREDENTIALS = `${CLUSTER}-vcd`;
/** The version act 1 rolls the control plane onto once the cluster runs. */
export const UPGRADE_VERSION = 'v1.35.1';

const capvcdDeploy = (file: string) => fileURLToPath(import.meta.resolve(`@capstan/capvcd/deploy/${file}`));
/** vcdsim's sample cloud, shipped in its package (`<package>/seeds`, beside `dist`). */
const sampleSeed = () =>
  join(dirname(dirname(fileURLToPath(import.meta.resolve('@capstan/vcdsim')))), 'seeds', 'sample.yaml');

/** The MachineDeployment's and MachineSets' conditions that are not True: why workers are missing. */
async function poolConditions(admin: Client): Promise<string> {
  const said: string[] = [];
  for (const type of [MachineDeploymentType, MachineSetType]) {
    const { items } = await admin.list(type, { namespace: NAMESPACE }).catch(() => ({ items: [] }));
    for (const o of items)
      for (const c of o.status?.conditions ?? [])
        if (c.status !== 'True')
          said.push(
            `${o.kind} ${o.metadata.name}: ${c.type} ${c.status} ${c.reason ?? ''} ${c.message ?? ''}`,
          );
  }
  return said.length ? said.join('; ') : 'no MachineDeployment or MachineSet condition is False';
}

/** Starts the management cluster (Cluster API with KCP) and the workload control plane, at once. */
async function startPlanes(ctx: ActContext): Promise<{ management: ControlPlane; workload: ControlPlane }> {
  ctx.view.say(
    'Act 1: provision. Starting a management cluster (etcd, kube-apiserver, Cluster API core + kubeadm bootstrap + KubeadmControlPlane) and a workload control plane (kube-scheduler, kube-controller-manager, kwok)...',
  );
  // Whichever started is stopped at the end even if the other failed.
  const planes = await Promise.allSettled([
    ControlPlane.start({
      clusterApi: { controlPlane: 'kubeadm' },
      controllerManager: ['clusterrole-aggregation', 'garbagecollector'],
    }),
    ControlPlane.start({ controllerManager: true, scheduler: true, kwok: true }),
  ]);
  for (const p of planes) if (p.status === 'fulfilled') ctx.onEnd(() => p.value.stop());
  for (const p of planes) if (p.status === 'rejected') throw p.reason;
  const [management, workload] = planes.map((p) => (p as PromiseFulfilledResult<ControlPlane>).value) as [
    ControlPlane,
    ControlPlane,
  ];
  ctx.startClock();
  ctx.checkInterrupt();
  ctx.view.say(
    `  management ${management.server}; workload ${workload.server} (kubeconfig ${workload.kubeconfigPath})`,
  );
  return { management, workload };
}

/**
 * The cloud: vcdsim, each VM's boot hook playing its guest (cloud-init and kubeadm: its
 * Node, and on a control plane kubeadm's static pods and uploads, in the workload cluster).
 */
async function startCloud(
  ctx: ActContext,
  workload: ControlPlane,
  plan: ClusterPlan,
): Promise<{ sim: VcdSim; nodes: RegisteredNode[] }> {
  const nodes: RegisteredNode[] = [];
  const guests = new KubeadmGuest({ workload, providerID: providerIdFor, osImage: plan.osImage });
  ctx.onEnd(() => guests.stop());
  const boot = async (vm: BootedVm, guestinfo: Record<string, string>) => {
    const guest = await guests.boot(guestinfo);
    if (!guest) return undefined;
    nodes.push({ name: guest.name, controlPlane: guest.step !== 'join', providerID: guest.providerID });
    ctx.view.say(
      `  guest ${vm.name} (${vm.ipAddress ?? 'no IP'}): ${guest.format} kubeadm ${guest.step.replace('-', ' --')}; registered Node ${guest.name}`,
    );
    return undefined;
  };
  const sim = await startVcdSim({
    seed: sampleSeed(),
    taskLatencyMs: 150,
    bootDelayMs: 300,
    onBoot: (vm, guestinfo) => boot(vm, guestinfo),
  });
  ctx.onEnd(() => sim.stop());
  ctx.view.say(
    `  vcdsim (Cloud Director ${sim.url}): org tenant-a, VDC vdc-a, network net-a, edge gateway edge-a`,
  );
  return { sim, nodes };
}

/**
 * capvcd installed in the management cluster (CRDs, RBAC, credentials, the workload's
 * kubeconfig) and run as its Deployment would: its ServiceAccount, leader election.
 */
async function startCapvcd(ctx: ActContext, management: ControlPlane, workload: ControlPlane, sim: VcdSim) {
  await management.installCRDs([capvcdDeploy('crds.yaml')]);
  await management.createObjects([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capvcd-system' } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
  ]);
  await management.createObjects([
    ...readManifests(capvcdDeploy('rbac.yaml')),
    ...readManifests(capvcdDeploy('capi-aggregated-role.yaml')),
  ]);
  await management.createObjects([
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: CREDENTIALS, namespace: NAMESPACE },
      stringData: { username: 'alice', password: 'alice-password', 'ca.crt': sim.caPem },
    },
  ]);
  await startWorkloadCluster(management, { namespace: NAMESPACE, clusterName: CLUSTER, plane: workload });
  const manager = Manager.create({
    kubeConfig: await management.serviceAccountKubeConfig('capvcd-system', CAPVCD_MANAGER),
    leaderElection: { id: CAPVCD_MANAGER, namespace: 'capvcd-system' },
    eventSource: EVENT_SOURCE,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    gracefulShutdownTimeoutMs: 5_000,
    logger: ctx.logger.child({ component: 'capvcd' }),
  });
  const handle = addCapvcd(manager, { taskPolling: { minMs: 100, maxMs: 1000 }, recheckMs: 500 });
  ctx.runManager('capvcd', manager, () => handle.connections.close());
}

/** Creates the user's objects: Cluster, VCDCluster, KubeadmControlPlane, MachineDeployment... */
async function askForCluster(ctx: ActContext, management: ControlPlane, sim: VcdSim, plan: ClusterPlan) {
  await management.createObjects(
    clusterObjects({
      namespace: NAMESPACE,
      name: CLUSTER,
      kubernetesVersion: KUBERNETES_VERSION,
      controlPlanes: plan.controlPlanes,
      workers: plan.workers,
      cloud: {
        site: sim.url,
        org: 'tenant-a',
        ovdc: 'vdc-a',
        network: 'net-a',
        catalog: 'templates',
        template: 'flatcar-stable-kube-v1.35',
        credentialsSecret: CREDENTIALS,
      },
    }),
  );
  ctx.view.say(
    `  Cluster ${NAMESPACE}/${CLUSTER}: no endpoint given (capvcd makes a VCD load balancer); KubeadmControlPlane ${controlPlaneName(CLUSTER)} of ${plan.controlPlanes} machines (stacked etcd: a real etcd member per node); MachineDeployment of ${plan.workers} workers`,
  );
}

/** Waits until `total` Machines run with a Node; a timeout says why workers are missing. */
async function machinesRunning(ctx: ActContext, admin: Client, watch: MachineWatch, total: number) {
  await ctx
    .waitUntil(`${total} Machines Running with a Node`, async () => {
      const now = await watch.look('waiting for every Machine to run');
      return now.length === total && now.every((r) => r.phase === 'Running' && r.node !== undefined);
    })
    .catch(async (err: Error) => {
      throw new Error(`${err.message}; ${await poolConditions(admin)}`);
    });
}

/** What act 1 found; the Nodes are those of the Machines that run now. */
async function clusterFacts(
  admin: Client,
  sim: VcdSim,
  rows: MachineRow[],
  registered: RegisteredNode[],
  rollout: ControlPlaneRollout,
): Promise<ClusterFacts> {
  const vcdCluster = await admin.get(VCDClusterType, { namespace: NAMESPACE, name: CLUSTER });
  const pool = [...sim.inspect.world.pools.values()][0];
  const requests = sim.inspect.requests();
  const current = new Set(rows.map((r) => r.node));
  return {
    machines: rows,
    vcdCalls: requests.length,
    vcdWrites: requests.filter(
      (r) => r.method !== 'GET' && !r.route.includes('/sessions') && !r.route.includes('/oauth/'),
    ).length,
    vcdTasks: sim.inspect.tasks().length,
    loadBalancer: vcdCluster.spec.controlPlaneEndpoint?.host
      ? { vip: vcdCluster.spec.controlPlaneEndpoint.host, members: pool?.members.length ?? 0 }
      : undefined,
    nodes: registered.filter((n) => current.has(n.name)),
    guestErrors: sim.inspect.errors().map((e) => `${e.where}: ${String(e.error)}`),
    rollout,
  };
}

/** Runs act 1 scene by scene; see the file comment. The clean-ups go to `ctx`. */
export async function provisionCluster(ctx: ActContext, plan: ClusterPlan): Promise<ProvisionedCluster> {
  const { management, workload } = await startPlanes(ctx);
  const { sim, nodes } = await startCloud(ctx, workload, plan);
  const admin = new Client(new HttpTransport(management.kubeConfig));
  await startCapvcd(ctx, management, workload, sim);
  await askForCluster(ctx, management, sim, plan);
  const watch = new MachineWatch(ctx, admin, sim, NAMESPACE);
  await machinesRunning(ctx, admin, watch, plan.workers + plan.controlPlanes);
  ctx.view.settle();
  ctx.view.say(
    `  ${watch.rows.length} Machines Running at ${KUBERNETES_VERSION}; load balancer ${[...sim.inspect.world.pools.values()][0]?.members.length ?? 0} member(s)`,
  );
  const rollout = await rollControlPlane(ctx, admin, watch, sim, {
    ...{ namespace: NAMESPACE, name: controlPlaneName(CLUSTER) },
    ...{ from: KUBERNETES_VERSION, to: UPGRADE_VERSION, replicas: plan.controlPlanes },
  });
  const facts = await clusterFacts(admin, sim, watch.rows, nodes, rollout);
  ctx.view.settle();
  ctx.view.say(
    `  ${watch.rows.filter((r) => r.phase === 'Running').length} Machines Running; VCD: ${facts.vcdCalls} calls (${facts.vcdWrites} writes), ${facts.vcdTasks} tasks; load balancer ${facts.loadBalancer?.vip ?? 'none'} with ${facts.loadBalancer?.members ?? 0} member(s)`,
  );
  return { facts, workload };
}
