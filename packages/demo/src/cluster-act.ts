/**
 * Act 1, provision: a management cluster with real Cluster API (core + kubeadm bootstrap) and
 * capvcd under its own Manager and ServiceAccount; vcdsim over HTTPS as the cloud; a workload
 * control plane (kube-scheduler, kube-controller-manager, kwok) whose kubeconfig Secret Cluster API
 * reads. Each VM's boot hook plays its guest (envtest's KubeadmGuest): it reads guestinfo as
 * cloud-init would and does what its kubeadm step leaves in the workload cluster (the kwok Node with
 * its providerID; a control plane's static pods and kubeadm-config); Cluster API then sets the
 * nodeRef and the Machine runs.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  addCapvcd,
  CAPI_GROUP,
  CAPI_VERSION,
  EVENT_SOURCE,
  MachineType,
  providerIdFor,
  VCDClusterType,
  type VCDMachine,
  VCDMachineType,
} from '@capstan/capvcd';
import { ControlPlane, KubeadmGuest, readManifests, startWorkloadCluster } from '@capstan/envtest';
import { Client, type Condition, defineResource, type KubeObject, Manager } from '@capstan/runtime';
import { HttpTransport } from '@capstan/runtime/client';
import { type BootedVm, startVcdSim, type VcdSim, VmStatus } from '@capstan/vcdsim';
import type { ActContext } from './act.js';
import { clusterObjects, controlPlaneName } from './cluster-objects.js';
import { type MachineRow, machineTable } from './tables.js';

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

const capvcdDeploy = (file: string) => fileURLToPath(import.meta.resolve(`@capstan/capvcd/deploy/${file}`));
/** vcdsim's sample cloud, shipped in its package (`<package>/seeds`, beside `dist`). */
const sampleSeed = () =>
  join(dirname(dirname(fileURLToPath(import.meta.resolve('@capstan/vcdsim')))), 'seeds', 'sample.yaml');

const statusName = (status: number) =>
  Object.entries(VmStatus).find(([, v]) => v === status)?.[0] ?? String(status);

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

/** Runs act 1; see the file comment. The clean-ups go to `ctx`. */
export async function provisionCluster(ctx: ActContext, plan: ClusterPlan): Promise<ProvisionedCluster> {
  const { view } = ctx;
  view.say(
    'Act 1: provision. Starting a management cluster (etcd, kube-apiserver, Cluster API core + kubeadm bootstrap + KubeadmControlPlane) and a workload control plane (kube-scheduler, kube-controller-manager, kwok)...',
  );
  // Both at once; whichever started is stopped at the end even if the other failed.
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
  view.say(
    `  management ${management.server}; workload ${workload.server} (kubeconfig ${workload.kubeconfigPath})`,
  );

  const nodes: RegisteredNode[] = [];
  // Each VM's guest plays cloud-init and kubeadm: its Node (and, on a control plane, kubeadm's
  // static pods and uploads) appear in the workload cluster as its bootstrap data says.
  const guests = new KubeadmGuest({ workload, providerID: providerIdFor, osImage: plan.osImage });
  ctx.onEnd(() => guests.stop());
  const boot = async (vm: BootedVm, guestinfo: Record<string, string>) => {
    const guest = await guests.boot(guestinfo);
    if (!guest) return undefined;
    const controlPlane = guest.step !== 'join';
    nodes.push({ name: guest.name, controlPlane, providerID: guest.providerID });
    view.say(
      `  guest ${vm.name} (${vm.ipAddress ?? 'no IP'}): ${guest.format} kubeadm ${guest.step.replace('-', ' --')}; registered Node ${guest.name}`,
    );
    return undefined;
  };
  const sim: VcdSim = await startVcdSim({
    seed: sampleSeed(),
    taskLatencyMs: 150,
    bootDelayMs: 300,
    onBoot: (vm, guestinfo) => boot(vm, guestinfo),
  });
  ctx.onEnd(() => sim.stop());
  view.say(
    `  vcdsim (Cloud Director ${sim.url}): org tenant-a, VDC vdc-a, network net-a, edge gateway edge-a`,
  );

  const admin = new Client(new HttpTransport(management.kubeConfig));
  await management.installCRDs([capvcdDeploy('crds.yaml')]);
  await management.createObjects([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capvcd-system' } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
  ]);
  await management.createObjects(readManifests(capvcdDeploy('rbac.yaml')));
  const credentials = `${CLUSTER}-vcd`;
  await management.createObjects([
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: credentials, namespace: NAMESPACE },
      stringData: { username: 'alice', password: 'alice-password', 'ca.crt': sim.caPem },
    },
  ]);
  await startWorkloadCluster(management, { namespace: NAMESPACE, clusterName: CLUSTER, plane: workload });

  // capvcd as its Deployment would run it: its ServiceAccount, leader election.
  const manager = Manager.create({
    kubeConfig: await management.serviceAccountKubeConfig('capvcd-system', 'capstan-capvcd'),
    leaderElection: { id: 'capstan-capvcd', namespace: 'capvcd-system' },
    eventSource: EVENT_SOURCE,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    gracefulShutdownTimeoutMs: 5_000,
    logger: ctx.logger.child({ component: 'capvcd' }),
  });
  const handle = addCapvcd(manager, { taskPolling: { minMs: 100, maxMs: 1000 }, recheckMs: 500 });
  const stop = new AbortController();
  const running = manager.start(stop.signal).catch((err) => ctx.fault('capvcd', err));
  ctx.onEnd(async () => {
    stop.abort();
    await running;
    handle.connections.close();
  });

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
        credentialsSecret: credentials,
      },
    }),
  );
  view.say(
    `  Cluster ${NAMESPACE}/${CLUSTER}: no endpoint given (capvcd makes a VCD load balancer); KubeadmControlPlane ${controlPlaneName(CLUSTER)} of ${plan.controlPlanes} machines (stacked etcd: a real etcd member per node); MachineDeployment of ${plan.workers} workers`,
  );

  let rows: MachineRow[] = [];
  const seen = new Map<string, string>();
  const look = async () => {
    const machines = (await admin.list(MachineType, { namespace: NAMESPACE })).items;
    const infra = new Map(
      (await admin.list(VCDMachineType, { namespace: NAMESPACE })).items.map((m: VCDMachine) => [
        m.metadata.name,
        m,
      ]),
    );
    rows = machines.map((m) => {
      const vcdMachine = infra.get(m.spec?.infrastructureRef?.name ?? '');
      const vmName = vcdMachine?.status?.vmName;
      const vm = vmName ? sim.inspect.vm(vmName) : undefined;
      return {
        name: m.metadata.name ?? '',
        controlPlane: m.metadata.labels?.['cluster.x-k8s.io/control-plane'] !== undefined,
        phase: m.status?.phase ?? 'Pending',
        node: m.status?.nodeRef?.name,
        vm: vm?.name,
        vmStatus: vm ? statusName(vm.status) : '-',
        ip: vcdMachine?.status?.addresses?.find((a) => a.type === 'InternalIP')?.address,
        calls: vm ? sim.inspect.requestsFor(vm.id).length : 0,
      };
    });
    rows.sort((a, b) => Number(b.controlPlane) - Number(a.controlPlane) || a.name.localeCompare(b.name));
    for (const r of rows) {
      const state = `${r.phase.padEnd(13)} VM ${r.vmStatus.padEnd(11)} ${r.ip ?? ''}`;
      if (seen.get(r.name) !== state) {
        seen.set(r.name, state);
        view.line(`  ${r.name.padEnd(34)}${state}`);
      }
    }
    const guestErrors = sim.inspect.errors();
    if (guestErrors.length > 0) ctx.fault('a guest boot hook', guestErrors[0]?.error);
    view.redraw(
      [
        `  VCD: ${sim.inspect.requestTotal()} calls, ${sim.inspect.tasks().length} tasks`,
        '',
        ...machineTable(rows),
      ],
      ctx.elapsed(),
      'waiting for every Machine to run',
    );
    return rows;
  };
  const total = plan.workers + plan.controlPlanes;
  await ctx
    .waitUntil(`${total} Machines Running with a Node`, async () => {
      const now = await look();
      return now.length === total && now.every((r) => r.phase === 'Running' && r.node !== undefined);
    })
    .catch(async (err: Error) => {
      throw new Error(`${err.message}; ${await poolConditions(admin)}`);
    });
  const vcdCluster = await admin.get(VCDClusterType, { namespace: NAMESPACE, name: CLUSTER });
  const pool = [...sim.inspect.world.pools.values()][0];
  const requests = sim.inspect.requests();
  const facts: ClusterFacts = {
    machines: rows,
    vcdCalls: requests.length,
    vcdWrites: requests.filter(
      (r) => r.method !== 'GET' && !r.route.includes('/sessions') && !r.route.includes('/oauth/'),
    ).length,
    vcdTasks: sim.inspect.tasks().length,
    loadBalancer: vcdCluster.spec.controlPlaneEndpoint?.host
      ? { vip: vcdCluster.spec.controlPlaneEndpoint.host, members: pool?.members.length ?? 0 }
      : undefined,
    nodes,
    guestErrors: sim.inspect.errors().map((e) => `${e.where}: ${String(e.error)}`),
  };
  view.settle();
  view.say(
    `  ${rows.filter((r) => r.phase === 'Running').length} Machines Running; VCD: ${facts.vcdCalls} calls (${facts.vcdWrites} writes), ${facts.vcdTasks} tasks; load balancer ${facts.loadBalancer?.vip ?? 'none'} with ${facts.loadBalancer?.members ?? 0} member(s)`,
  );
  return { facts, workload };
}
