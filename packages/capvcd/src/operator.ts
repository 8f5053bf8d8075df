/**
 * Wiring: the VCDCluster, VCDMachine and VCDMachineTemplate controllers added to a manager, sharing one set of VCD
 * connections (one session per credentials) and one metrics set. `main.ts` uses it; tests call it
 * on their own manager.
 */
import {
  annotationsChanged,
  type Controller,
  generationChanged,
  type KubeObject,
  labelsChanged,
  type Manager,
  or,
  type Predicate,
  parseRequestKey,
  type Request,
} from '@capstan/runtime';
import { type Cluster, ClusterType, type Machine, MachineType } from './api/capi.js';
import { conversionSchemes } from './api/conversion.js';
import { IPAddressClaimType } from './api/ipam.js';
import { CLUSTER_NAME_LABEL, GROUP } from './api/keys.js';
import {
  type VCDCluster,
  type VCDClusterIdentity,
  VCDClusterIdentityType,
  VCDClusterType,
  type VCDMachine,
  VCDMachineTemplateType,
  VCDMachineType,
} from './api/types.js';
import { VCDClusterReconciler } from './cluster/reconciler.js';
import { credentialsSecretOf } from './credentials.js';
import { CredentialsSecrets } from './credentials-secrets.js';
import { VCDMachineReconciler } from './machine/reconciler.js';
import { VCDMachineTemplateReconciler } from './machine-template/reconciler.js';
import { CapvcdMetrics } from './metrics.js';
import { capvcdPermissions } from './permissions.js';
import { capiOwner } from './scope.js';
import type { TaskPolling } from './tasks.js';
import { Connections } from './vcd/connections.js';
import type { VcdTransport } from './vcd/site.js';

/** Options of {@link addCapvcd}. */
export interface CapvcdOptions {
  /** Reconciles at once per controller (default 10, as CAPVCD's `--concurrency`). */
  concurrency?: number;
  /** VCD requests per second per site, and burst (default 10 / 20). */
  vcdQps?: number;
  vcdBurst?: number;
  /** VCD requests in flight at once per site (default 20). */
  vcdConcurrency?: number;
  /** Per-request timeout (default 60 s). */
  vcdTimeoutMs?: number;
  /** PEM CA bundle for sites whose credentials Secret has no `ca.crt` (default: the system roots). */
  vcdCaPem?: string;
  /** Sends VCD requests instead of HTTPS: a simulator served in-process, for tests on a virtual clock. */
  vcdTransport?: VcdTransport;
  /** How often recorded tasks are looked at. */
  taskPolling?: TaskPolling;
  /** Delay before looking again at a VM waiting for its IP or a busy entity (default 5 s). */
  recheckMs?: number;
  /**
   * How often each provisioned machine's VM is read again, to power on a VM found off and report
   * one found gone (default {@link DEFAULT_DRIFT_PERIOD_MS}; 0 switches drift checks off).
   */
  driftPeriodMs?: number;
  /**
   * After a VCD error (5xx, 429, `BUSY_ENTITY`, a failed call) the object's next try waits
   * `initialMs × 2^n` for its n-th error in a row, at most `maxMs` (default 1 s to 5 min).
   */
  vcdErrorBackoff?: { initialMs: number; maxMs: number };
  /**
   * Serve the conversion of CAPVCD's v1beta2 and v1beta1 on the manager's webhook server (which
   * then needs its serving certificate, as the Deployment mounts it). Default false.
   */
  conversionWebhook?: boolean;
}

/** The default drift-check period: 5 minutes, one VM read per provisioned machine each. */
export const DEFAULT_DRIFT_PERIOD_MS = 300_000;

/** What {@link addCapvcd} added. */
export interface CapvcdHandle {
  clusterController: Controller;
  machineController: Controller;
  /** Publishes VCDMachineTemplates' `status.capacity` for the cluster autoscaler. */
  templateController: Controller;
  connections: Connections;
  metrics: CapvcdMetrics;
}

/**
 * Our own objects' events that matter: spec (generation), labels, annotations (pause), owner
 * references (CAPI adopting), finalizers and deletion. Our status writes are not among them: the
 * reconcile that wrote one already said when to look again.
 */
const notOurStatus: Predicate = or(generationChanged, labelsChanged, annotationsChanged, {
  update: (old, o) =>
    JSON.stringify([
      old.metadata.ownerReferences,
      old.metadata.finalizers,
      old.metadata.deletionTimestamp,
    ]) !== JSON.stringify([o.metadata.ownerReferences, o.metadata.finalizers, o.metadata.deletionTimestamp]),
});

/** Passes updates that change what `pick` reads (CAPI rewrites Machine and Cluster status often). */
const changed = <T extends KubeObject>(pick: (o: T) => unknown): Predicate<T> => ({
  update: (old, o) => JSON.stringify(pick(old)) !== JSON.stringify(pick(o)),
});
const machineInputs = changed<Machine>((m) => [
  m.spec?.bootstrap?.dataSecretName,
  m.spec?.failureDomain,
  m.spec?.infrastructureRef,
  m.metadata.labels,
  m.metadata.deletionTimestamp,
]);
const clusterInputs = changed<Cluster>((c) => [
  c.spec?.paused,
  c.spec?.infrastructureRef,
  c.status?.initialization?.infrastructureProvisioned,
  c.metadata.deletionTimestamp,
]);
const machineOutputs = changed<VCDMachine>((m) => [
  m.status?.initialization?.provisioned,
  m.status?.addresses,
  m.metadata.labels,
  m.metadata.deletionTimestamp,
]);

const keyOf = (o: KubeObject): Request => ({
  namespace: o.metadata.namespace as string,
  name: o.metadata.name as string,
});

/** One session per VCD credentials, with the options' rate limits, CA and transport. */
function vcdConnections(options: CapvcdOptions, metrics: CapvcdMetrics): Connections {
  return new Connections(
    {
      qps: options.vcdQps,
      burst: options.vcdBurst,
      concurrency: options.vcdConcurrency,
      timeoutMs: options.vcdTimeoutMs,
      ...(options.vcdCaPem ? { caPem: options.vcdCaPem } : {}),
      ...(options.vcdTransport ? { transport: options.vcdTransport } : {}),
    },
    metrics.onCall,
  );
}

/** Which of our objects an event on a related object concerns, read from the manager's cache. */
function watchMappers(cache: Manager['cache']) {
  // A Cluster's change (pause, infrastructure provisioned) concerns all its machines.
  const machinesOf = (cluster: Cluster): Request[] =>
    cache
      .list(VCDMachineType, {
        namespace: cluster.metadata.namespace,
        labelSelector: `${CLUSTER_NAME_LABEL}=${cluster.metadata.name}`,
      })
      .map(keyOf);
  const infraOf = (o: Cluster | Machine): Request[] => {
    const ref = o.spec?.infrastructureRef;
    return ref?.apiGroup === GROUP ? [{ namespace: o.metadata.namespace as string, name: ref.name }] : [];
  };
  // A machine's change (provisioned, deleted) concerns its cluster's load balancer and deletion.
  const clusterOfMachine = (m: VCDMachine): Request[] => {
    const name = m.metadata.labels?.[CLUSTER_NAME_LABEL];
    const cluster = name ? cache.get(ClusterType, { namespace: m.metadata.namespace, name }) : undefined;
    return cluster ? infraOf(cluster) : [];
  };
  // An identity granted or withdrawn concerns the VCDClusters naming its Secret.
  const clustersOfIdentity = (identity: VCDClusterIdentity): Request[] => {
    const { namespace, name } = identity.spec.secretRef;
    return cache
      .list(VCDClusterType)
      .filter((c) => {
        const key = credentialsSecretOf(c);
        return key.namespace === namespace && key.name === name;
      })
      .map(keyOf);
  };
  // A VCDCluster appearing (or its credentials changing) concerns its cluster's templates.
  const templatesOf = (c: VCDCluster): Request[] => {
    const cluster = capiOwner(c, 'Cluster');
    return cluster
      ? cache
          .list(VCDMachineTemplateType, {
            namespace: c.metadata.namespace,
            labelSelector: `${CLUSTER_NAME_LABEL}=${cluster}`,
          })
          .map(keyOf)
      : [];
  };
  return { machinesOf, infraOf, clusterOfMachine, clustersOfIdentity, templatesOf };
}

/** Adds both controllers to `manager`, on the manager's clock. Call before `manager.start`. */
export function addCapvcd(manager: Manager, options: CapvcdOptions = {}): CapvcdHandle {
  const metrics = new CapvcdMetrics(manager.metrics.registry);
  if (options.conversionWebhook)
    for (const scheme of conversionSchemes()) manager.webhooks.addConversion(scheme);
  const connections = vcdConnections(options, metrics);
  const common = {
    client: manager.client,
    // The credentials Secret from its own informer: one GET a reconcile was most of our reads.
    secrets: new CredentialsSecrets(manager.client, manager.cache),
    connections,
    events: manager.events,
    metrics,
    clock: manager.clock,
    ...(options.taskPolling ? { polling: options.taskPolling } : {}),
    ...(options.vcdErrorBackoff ? { vcdErrorBackoff: options.vcdErrorBackoff } : {}),
  };
  const { machinesOf, infraOf, clusterOfMachine, clustersOfIdentity, templatesOf } = watchMappers(
    manager.cache,
  );
  const concurrency = { maxConcurrentReconciles: options.concurrency ?? 10 };
  const machineReconciler = new VCDMachineReconciler({
    ...common,
    ...(options.recheckMs ? { recheckMs: options.recheckMs } : {}),
    driftPeriodMs: options.driftPeriodMs ?? DEFAULT_DRIFT_PERIOD_MS,
  });
  const machineController = manager
    .controllerBuilder()
    .named('vcdmachine')
    .for(VCDMachineType, { predicates: [notOurStatus] })
    .watches(MachineType, infraOf, { predicates: [machineInputs] })
    .watches(ClusterType, machinesOf, { predicates: [clusterInputs] })
    // A MANUAL NIC's claim answered by the IPAM provider: its machine goes on.
    .owns(IPAddressClaimType, { verbs: ['get', 'list', 'watch', 'create', 'delete'] })
    .withOptions(concurrency)
    .build(machineReconciler);
  // Machines waiting for one vApp: brought forward when their batch is sent or the vApp is idle.
  machineReconciler.wakeWith((key) => machineController.enqueue(parseRequestKey(key), 'vApp batch'));
  const clusterController = manager
    .controllerBuilder()
    .named('vcdcluster')
    .for(VCDClusterType, { predicates: [notOurStatus] })
    .watches(ClusterType, infraOf, { predicates: [clusterInputs] })
    .watches(VCDMachineType, clusterOfMachine, { predicates: [machineOutputs] })
    .watches(VCDClusterIdentityType, clustersOfIdentity)
    .withOptions(concurrency)
    .build(new VCDClusterReconciler(common));
  const templateController = manager
    .controllerBuilder()
    .named('vcdmachinetemplate')
    .for(VCDMachineTemplateType, { predicates: [notOurStatus] })
    .watches(VCDClusterType, templatesOf, { predicates: [notOurStatus] })
    .withOptions(concurrency)
    .build(new VCDMachineTemplateReconciler(common));
  for (const permission of capvcdPermissions()) manager.permissions.add(permission);
  return { clusterController, machineController, templateController, connections, metrics };
}
