/**
 * The end-to-end rig: a management cluster with real Cluster API (core + CABPK), our CRDs and
 * RBAC; vcdsim over HTTPS whose boot hook plays the guest (records its guestinfo, registers a Node
 * by providerID in the workload cluster, here the same apiserver); and the provider under a
 * Manager, as its ServiceAccount, with leader election. Builders for the CAPI objects a user writes.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  addCapvcd,
  type CapvcdHandle,
  type CapvcdOptions,
  EVENT_SOURCE,
  MachineType,
  PROVIDER_ID_PREFIX,
  providerIdFor,
  VCDClusterType,
  type VCDMachine,
  type VCDMachineSpec,
  VCDMachineType,
  type Zone,
} from '@capstan/capvcd';
import {
  ControlPlane,
  KubeadmGuest,
  type ManifestObject,
  readManifests,
  startWorkloadCluster,
  type WebhookInstallation,
} from '@capstan/envtest';
import { Client, Manager } from '@capstan/runtime';
import { HttpTransport, Node } from '@capstan/runtime/client';
import { eventually, WatchRecord } from '@capstan/runtime/testing';
import { type BootedVm, startVcdSim, type VcdSim, type VcdSimOptions } from '@capstan/vcdsim';
import { conditionText } from './condition-history.js';
import {
  type ClusterExtras,
  clusterObjects,
  type MachineExtras,
  machineObjects,
  type WorkerExtras,
  workerObjects,
} from './objects.js';

/** The package folder, found from here whether this runs from source (tests) or compiled (bench). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'deploy', 'crds.yaml'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the @capstan/capvcd package folder');
    dir = up;
  }
  return dir;
}
/** A file of the package's deploy/ folder. */
export const deploy = (file: string) => join(packageRoot(), 'deploy', file);
/** vcdsim's seed the tests start from. */
export const SEED = join(packageRoot(), 'test', 'fixtures', 'seed.yaml');

/** Provider timings scaled down as vcdsim's tasks are: VCD errors back off from 200 ms, at most 2 s. */
export const SCALED_TIMINGS: CapvcdOptions = {
  taskPolling: { minMs: 100, maxMs: 1000 },
  recheckMs: 200,
  vcdErrorBackoff: { initialMs: 200, maxMs: 2_000 },
};

/** One running provider (a Manager with both controllers). */
export interface Provider {
  manager: Manager;
  handle: CapvcdHandle;
  stop(): Promise<void>;
}

export class Harness {
  /** Guestinfo each VM booted with, by VM name. */
  readonly booted = new Map<string, Record<string, string>>();
  provider: Provider | undefined;
  /** Errors a provider's run ended with (a lost leader lease, ...). */
  readonly failures: unknown[] = [];
  private readonly histories: WatchRecord<VCDMachine>[] = [];
  /** With KubeadmControlPlane: the guests that play kubeadm (see `Harness.start`). */
  guest: KubeadmGuest | undefined;
  /** With `conversionWebhook`: where the API server calls the conversion of CAPVCD's versions. */
  webhooks: WebhookInstallation | undefined;

  private constructor(
    readonly plane: ControlPlane,
    readonly sim: VcdSim,
    readonly client: Client,
    readonly namespace: string,
    private readonly ownsSim = true,
  ) {}

  /**
   * Starts a management cluster, and vcdsim unless `sharedSim` is given (a second management
   * cluster for the same VCD, as `clusterctl move` targets; only the owner stops the simulator).
   * With `conversionWebhook`, the CRDs' conversion calls the provider this harness starts (CAPVCD's
   * v1beta2 and v1beta1 served); without, only v1beta3 objects can be read and written.
   */
  static async start(
    options: Partial<VcdSimOptions> & {
      namespace: string;
      sharedSim?: VcdSim;
      kubeadmControlPlane?: boolean;
      conversionWebhook?: boolean;
      /** Extra kube-apiserver flags (the scale bench's audit log). */
      apiServerFlags?: string[];
    },
  ): Promise<Harness> {
    // Cluster API's manager role is an aggregated ClusterRole: kube-controller-manager's
    // clusterrole-aggregation controller must run to fill it (ours included); the garbage
    // collector removes what owner references tie to deleted objects. With KubeadmControlPlane,
    // kwok runs the Nodes and the guests play kubeadm (static pods, kubeadm-config), as KCP checks.
    const kcp = options.kubeadmControlPlane ?? false;
    const plane = await ControlPlane.start({
      clusterApi: kcp ? { controlPlane: 'kubeadm' } : true,
      controllerManager: ['clusterrole-aggregation', 'garbagecollector'],
      kwok: kcp,
      ...(options.apiServerFlags ? { apiServerFlags: options.apiServerFlags } : {}),
    });
    if (process.env.CAPVCD_TEST_LOG) console.info(`management cluster: ${plane.kubeconfigPath}`);
    const client = new Client(new HttpTransport(plane.kubeConfig));
    let harness: Harness | undefined;
    const sim =
      options.sharedSim ??
      (await startVcdSim({
        seed: SEED,
        taskLatencyMs: 100,
        bootDelayMs: 100,
        ...options,
        onBoot: async (vm, guestinfo) => {
          await harness?.boot(vm, guestinfo);
        },
      }));
    harness = new Harness(plane, sim, client, options.namespace, !options.sharedSim);
    if (kcp)
      harness.guest = new KubeadmGuest({
        workload: plane,
        providerID: providerIdFor,
      });
    if (options.conversionWebhook)
      harness.webhooks = await plane.installWebhooks({ crds: [deploy('crds.yaml')] });
    else await plane.installCRDs([deploy('crds.yaml')]);
    // deploy/ as an operator applies it: the provider's Namespace, then its RBAC and ServiceAccount
    // (the Deployment itself stays out: the provider runs here, in-process or as main.js).
    await plane.createObjects([
      ...readManifests(deploy('manager.yaml')).filter((o) => o.kind === 'Namespace'),
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: options.namespace } },
    ]);
    await plane.createObjects([
      ...readManifests(deploy('rbac.yaml')),
      ...readManifests(deploy('capi-aggregated-role.yaml')),
    ]);
    return harness;
  }

  /**
   * The guest: keeps its guestinfo and registers its Node by providerID in the workload cluster;
   * with KubeadmControlPlane, plays kubeadm as its bootstrap data says.
   */
  private async boot(vm: BootedVm, guestinfo: Record<string, string>): Promise<void> {
    this.booted.set(vm.name, guestinfo);
    if (this.guest) {
      await this.guest.boot(guestinfo);
      return;
    }
    await this.client.create(Node, {
      metadata: { name: vm.name },
      spec: { providerID: `${PROVIDER_ID_PREFIX}${vm.urn}` },
    });
  }

  /** Starts the provider as its ServiceAccount, with leader election. */
  async startProvider(options: CapvcdOptions = SCALED_TIMINGS): Promise<Provider> {
    const kubeConfig = await this.plane.serviceAccountKubeConfig('capvcd-system', 'capstan-capvcd');
    const manager = Manager.create({
      kubeConfig,
      // The default lease timings: a graceful stop releases the lease, so a successor starts at once.
      leaderElection: { id: 'capstan-capvcd', namespace: 'capvcd-system' },
      eventSource: EVENT_SOURCE,
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
      logLevel: (process.env.CAPVCD_TEST_LOG as 'info' | undefined) ?? 'silent',
      gracefulShutdownTimeoutMs: 5_000,
      ...(this.webhooks
        ? { webhook: { host: this.webhooks.host, port: this.webhooks.port, certDir: this.webhooks.certDir } }
        : {}),
    });
    const handle = addCapvcd(manager, { ...options, conversionWebhook: this.webhooks !== undefined });
    const stop = new AbortController();
    // A lost lease (a starved machine) ends the run; it must not crash the process unseen.
    const running = manager.start(stop.signal).catch((err: unknown) => {
      this.failures.push(err);
    });
    const provider: Provider = {
      manager,
      handle,
      stop: async () => {
        stop.abort();
        await running;
        handle.connections.close();
      },
    };
    this.provider = provider;
    return provider;
  }

  /**
   * The credentials Secret (with the simulator's CA unless `caInSecret` is false: the provider
   * then needs it from `--vcd-ca-bundle`) and the workload cluster's kubeconfig Secret.
   */
  async prepareCluster(cluster: string, { caInSecret = true } = {}): Promise<void> {
    const credentials = { username: 'alice', password: 'alice-password' };
    await this.plane.createObjects([
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `${cluster}-vcd`, namespace: this.namespace },
        stringData: caInSecret ? { ...credentials, 'ca.crt': this.sim.caPem } : credentials,
      },
    ]);
    await startWorkloadCluster(this.plane, {
      namespace: this.namespace,
      clusterName: cluster,
      plane: this.plane,
    });
  }

  /**
   * Records every state of this namespace's VCDMachines from now on (the watch is synced when this
   * returns), for conditions too short-lived to be sure of catching by polling. Stopped with the harness.
   */
  async recordConditions(): Promise<WatchRecord<VCDMachine>> {
    // A condition the provider writes and then overwrites on its next try (a failed task, retried)
    // can come and go between two polls; each status write is a watch event, so here it stays.
    const history = await WatchRecord.start(this.plane.kubeConfig, VCDMachineType, {
      namespace: this.namespace,
    });
    this.histories.push(history);
    return history;
  }

  async stop(): Promise<void> {
    for (const history of this.histories.splice(0)) await history.stop();
    await this.provider?.stop();
    await this.guest?.stop();
    if (this.ownsSim) await this.sim?.stop();
    this.webhooks?.serving.remove();
    await this.plane?.stop();
  }

  /** Cluster + VCDCluster of this namespace on this simulator (see {@link clusterObjects}). */
  clusterObjects(name: string, endpoint?: { host: string; port: number }, zones?: Zone[]): ManifestObject[] {
    return this.clusterWith(name, { ...(endpoint ? { endpoint } : {}), ...(zones ? { zones } : {}) });
  }

  /** Cluster + VCDCluster of this namespace on this simulator, with any {@link ClusterExtras}. */
  clusterWith(name: string, extras: ClusterExtras): ManifestObject[] {
    return clusterObjects({ namespace: this.namespace, url: this.sim.url }, name, extras);
  }

  /** One control-plane Machine with its KubeadmConfig and VCDMachine (`vcdMachine`: spec extras). */
  controlPlaneObjects(
    cluster: string,
    name: string,
    vcdMachine: Partial<VCDMachineSpec> = {},
  ): ManifestObject[] {
    return machineObjects(this.namespace, cluster, name, { vcdMachine });
  }

  /** One Machine (worker or control plane) with its own KubeadmConfig and VCDMachine. */
  machineObjects(cluster: string, name: string, extras: MachineExtras): ManifestObject[] {
    return machineObjects(this.namespace, cluster, name, extras);
  }

  /** A MachineDeployment of workers with its two templates. */
  workerObjects(cluster: string, name: string, replicas: number, extras?: WorkerExtras): ManifestObject[] {
    return workerObjects(this.namespace, cluster, name, replicas, extras);
  }

  /** VCD writes (anything but GET) made since `seq`, by route. */
  writesSince(seq: number): string[] {
    return this.sim.inspect
      .requests()
      .filter(
        (r) =>
          r.seq > seq && r.method !== 'GET' && !r.route.includes('/sessions') && !r.route.includes('/oauth/'),
      )
      .map((r) => `${r.method} ${r.route}`);
  }

  /** Waits for `fn` to answer; on timeout, says what every VCDMachine's conditions were. */
  async wait<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
    let seen = '';
    return eventually(
      async () => {
        const machines = (await this.client.list(VCDMachineType, { namespace: this.namespace })).items;
        seen = machines.map((m) => `${m.metadata.name}: ${conditionText(m)}`).join('\n');
        return fn();
      },
      { what, timeoutMs, intervalMs: 250, details: () => `${seen}\n${this.simulatorState()}` },
    );
  }

  /** vcdsim's side of a timeout: unfinished tasks, its own errors, and the last calls made to it. */
  private simulatorState(): string {
    const tasks = this.sim.inspect
      .unfinishedTasks()
      .map(
        (t) =>
          `${t.operationName} ${t.status} on ${t.locks.join(',')} since ${new Date(t.startTime).toISOString()}`,
      );
    const errors = this.sim.inspect.errors().map((e) => `${e.where}: ${String(e.error)}`);
    const calls = this.sim.inspect
      .requests()
      .slice(-15)
      .map((r) => `${new Date(r.at).toISOString()} ${r.method} ${r.path} ${r.status}`);
    const rules = [...this.sim.inspect.world.affinityRules.values()].map(
      (r) => `${r.name} (${r.mandatory ? 'Required' : 'Preferred'}, ${r.vmIds.length} VMs)`,
    );
    return [
      `vcdsim affinity rules, in the order made: ${rules.join('; ') || 'none'}`,
      `vcdsim unfinished tasks: ${tasks.join('; ') || 'none'}`,
      `vcdsim errors: ${errors.join('; ') || 'none'}`,
      `last VCD calls:\n  ${calls.join('\n  ')}`,
    ].join('\n');
  }

  lastSeq(): number {
    return this.sim.inspect.requests().at(-1)?.seq ?? 0;
  }

  /**
   * Waits until the VCDCluster is provisioned and `machines` VCDMachines are, their Machines
   * Running; returns the VCDCluster.
   */
  async clusterRunning(what: string, name: string, machines: number) {
    const { namespace } = this;
    return this.wait(
      what,
      async () => {
        const cluster = await this.client.get(VCDClusterType, { namespace, name });
        const capi = (await this.client.list(MachineType, { namespace })).items;
        const infra = (await this.client.list(VCDMachineType, { namespace })).items;
        return cluster.status?.initialization?.provisioned &&
          infra.length === machines &&
          infra.every((x) => x.status?.initialization?.provisioned) &&
          capi.length === machines &&
          capi.every((m) => m.status?.phase === 'Running')
          ? cluster
          : undefined;
      },
      240_000,
    );
  }

  /** Deletes the Cluster and waits for its VCDCluster to be gone (its VCD objects with it). */
  async deleteCluster(name: string): Promise<void> {
    await this.plane.request(
      'DELETE',
      `/apis/cluster.x-k8s.io/v1beta2/namespaces/${this.namespace}/clusters/${name}`,
    );
    await this.wait(
      'the VCDCluster gone',
      async () =>
        (await this.client.list(VCDClusterType, { namespace: this.namespace })).items.length === 0
          ? true
          : undefined,
      240_000,
    );
  }

  /** The names of the VMs, vApps, pools and virtual services in vcdsim. */
  vcdNames() {
    const o = this.vcdObjects();
    const names = (list: Array<{ name: string }>) => list.map((x) => x.name);
    return {
      vms: names(o.vms),
      vapps: names(o.vapps),
      pools: names(o.pools),
      virtualServices: names(o.virtualServices),
    };
  }

  /** VMs and vApps in vcdsim. */
  vcdObjects() {
    const w = this.sim.inspect.world;
    return {
      vms: [...w.vms.values()],
      vapps: [...w.vapps.values()],
      pools: [...w.pools.values()],
      virtualServices: [...w.virtualServices.values()],
    };
  }
}
