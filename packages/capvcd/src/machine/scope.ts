/**
 * What one reconcile of a VCDMachine works with, read once at its start (CAPD's machine scope):
 * the VCDMachine, its Machine, Cluster and VCDCluster, and the status being built, which the
 * reconciler writes once, when the reconcile ends.
 */
import { type Client, type Logger, type Request, requestKey } from '@capstan/runtime';
import { type Cluster, type Machine, MachineType } from '../api/capi.js';
import { CLUSTER_NAME_LABEL, MANAGED_BY_LABEL } from '../api/keys.js';
import {
  type VCDCluster,
  VCDClusterType,
  type VCDMachine,
  type VCDMachineStatus,
  VCDMachineType,
} from '../api/types.js';
import { capiOwner, getCluster, getOrUndefined, NotReady } from '../scope.js';

/** One reconcile's view of a VCDMachine and the objects around it. */
export interface MachineScope {
  /** The VCDMachine as last read or patched (a providerID patch replaces it). */
  vcdMachine: VCDMachine;
  readonly machine: Machine | undefined;
  readonly cluster: Cluster | undefined;
  readonly clusterName: string | undefined;
  readonly vcdClusterName: string | undefined;
  readonly vcdCluster: VCDCluster | undefined;
  /** The status this reconcile builds; written once at the end. */
  readonly status: VCDMachineStatus;
  /** The machine's work-queue key. */
  readonly key: string;
  readonly log: Logger;
  /** The VCDMachine has a deletion timestamp: the reconcile is `reconcileDelete`. */
  readonly deleting: boolean;
  /** Our finalizer is gone: the object may be too, nothing is left to write. */
  released: boolean;
}

/**
 * Reads the scope of `request`; undefined for a VCDMachine that is gone, managed by another
 * controller, or not yet adopted by a Machine (its owner reference brings it back).
 */
export async function machineScope(
  client: Client,
  request: Request,
  log: Logger,
): Promise<MachineScope | undefined> {
  const vcdMachine = await getOrUndefined(() => client.get(VCDMachineType, request));
  if (!vcdMachine || vcdMachine.metadata.labels?.[MANAGED_BY_LABEL] !== undefined) return undefined;
  const machineName = capiOwner(vcdMachine, 'Machine');
  if (!machineName) return undefined;
  const namespace = request.namespace as string;
  const machine = await getOrUndefined(() => client.get(MachineType, { namespace, name: machineName }));
  const clusterName = vcdMachine.metadata.labels?.[CLUSTER_NAME_LABEL] ?? machine?.spec?.clusterName;
  const cluster = clusterName ? await getCluster(client, namespace, clusterName) : undefined;
  const vcdClusterName = cluster?.spec?.infrastructureRef?.name ?? clusterName;
  const vcdCluster = vcdClusterName
    ? await getOrUndefined(() => client.get(VCDClusterType, { namespace, name: vcdClusterName }))
    : undefined;
  return {
    vcdMachine,
    machine,
    cluster,
    clusterName,
    vcdClusterName,
    vcdCluster,
    status: structuredClone(vcdMachine.status ?? {}),
    key: requestKey(request),
    log,
    deleting: vcdMachine.metadata.deletionTimestamp !== undefined,
    released: false,
  };
}

/** What a machine that is not being deleted needs before any VCD call. */
export interface NormalInputs {
  machine: Machine;
  vcdCluster: VCDCluster;
  clusterName: string;
}

/**
 * The objects a live machine needs before VCD is asked anything.
 * @throws NotReady naming the first that is missing or not ready.
 */
export function normalInputs(s: MachineScope): NormalInputs {
  const { cluster, machine, clusterName } = s;
  if (!cluster || !machine)
    throw new NotReady('WaitingForCluster', `Cluster ${clusterName ?? '?'} not found`);
  if (!cluster.status?.initialization?.infrastructureProvisioned)
    throw new NotReady(
      'WaitingForClusterInfrastructure',
      'the Cluster’s infrastructure is not provisioned yet',
    );
  if (!machine.spec?.bootstrap?.dataSecretName)
    throw new NotReady('WaitingForBootstrapData', 'the Machine has no bootstrap data yet');
  return { machine, vcdCluster: vcdClusterOf(s), clusterName: clusterName as string };
}

/** The machine's VCDCluster. @throws NotReady while it does not exist. */
export function vcdClusterOf(s: MachineScope): VCDCluster {
  if (!s.vcdCluster)
    throw new NotReady('WaitingForVCDCluster', `VCDCluster ${s.vcdClusterName ?? '?'} not found`);
  return s.vcdCluster;
}

/** The VCDMachine's namespace and name, for a patch. */
export const keyOf = (o: VCDMachine) => ({
  namespace: o.metadata.namespace as string,
  name: o.metadata.name as string,
});
