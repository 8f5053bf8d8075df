/**
 * A workload cluster for Cluster API: a second control plane (kwok nodes by default) whose admin
 * kubeconfig is written into the management cluster as the `<cluster>-kubeconfig` Secret, so
 * Cluster API's Machine controller finds Nodes there by providerID, as with a real cluster.
 */
import { readFileSync } from 'node:fs';
import { ControlPlane, type StartOptions } from './control-plane.js';

/** Options of {@link startWorkloadCluster}. */
export interface WorkloadClusterOptions {
  /** Namespace of the Cluster object in the management cluster. */
  namespace: string;
  /** Name of the Cluster object. */
  clusterName: string;
  /** A running control plane to use as the workload cluster; default: a new one. */
  plane?: ControlPlane;
  /** Options of the new control plane; default `{ scheduler: true, kwok: true }`. */
  start?: StartOptions;
}

/** A workload cluster and how to end it. */
export interface WorkloadCluster {
  /** Its control plane: add Nodes with `plane.addNodes([{ name, providerID }])`. */
  plane: ControlPlane;
  /** The Secret in the management cluster holding its kubeconfig. */
  secretName: string;
  /** Stops the control plane if this helper started it. */
  stop(): Promise<void>;
}

/** The `<cluster>-kubeconfig` Secret Cluster API reads (type, key `value`, cluster-name label). */
export function kubeconfigSecret(namespace: string, clusterName: string, kubeconfig: string) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: `${clusterName}-kubeconfig`,
      namespace,
      labels: { 'cluster.x-k8s.io/cluster-name': clusterName },
    },
    type: 'cluster.x-k8s.io/secret',
    data: { value: Buffer.from(kubeconfig).toString('base64') },
  };
}

/** Starts (or reuses) a workload cluster and writes its kubeconfig Secret into `management`. */
export async function startWorkloadCluster(
  management: ControlPlane,
  options: WorkloadClusterOptions,
): Promise<WorkloadCluster> {
  const owned = !options.plane;
  const plane = options.plane ?? (await ControlPlane.start(options.start ?? { scheduler: true, kwok: true }));
  try {
    const secret = kubeconfigSecret(
      options.namespace,
      options.clusterName,
      readFileSync(plane.kubeconfigPath, 'utf8'),
    );
    await management.createObjects([secret]);
    return {
      plane,
      secretName: secret.metadata.name,
      stop: async () => {
        if (owned) await plane.stop();
      },
    };
  } catch (err) {
    if (owned) await plane.stop();
    throw err;
  }
}
