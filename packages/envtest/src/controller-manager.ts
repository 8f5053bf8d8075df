/** kube-controller-manager, running the controllers a test asks for. */
import { join } from 'node:path';
import { ManagedProcess } from './process.js';

/** Controllers of kube-controller-manager a test may switch on. */
export type ControllerName =
  | 'garbagecollector'
  | 'namespace'
  | 'disruption'
  | 'deployment'
  | 'replicaset'
  | 'daemonset'
  | 'statefulset'
  | 'job'
  | string;

/**
 * What `controllerManager: true` runs: the workload controllers and the garbage collector. Node
 * lifecycle stays off (a failed node's pods are not evicted behind a test's back).
 */
export const defaultControllers: ControllerName[] = [
  'garbagecollector',
  'namespace',
  'disruption',
  'deployment',
  'replicaset',
  'daemonset',
  'statefulset',
  'job',
  'clusterrole-aggregation',
];

/** Starts kube-controller-manager as the admin (controllers share its credentials). */
export function startControllerManager(
  binary: string,
  workDir: string,
  kubeconfigPath: string,
  controllers: ControllerName[],
  serviceAccountKey: string,
  nodeLeaseSeconds = 40,
): ManagedProcess {
  return ManagedProcess.start(
    'kube-controller-manager',
    binary,
    [
      `--kubeconfig=${kubeconfigPath}`,
      `--controllers=${controllers.join(',')}`,
      '--leader-elect=false',
      '--secure-port=0',
      '--use-service-account-credentials=false',
      `--service-account-private-key-file=${serviceAccountKey}`,
      `--root-ca-file=${join(workDir, 'pki', 'ca.crt')}`,
      '--concurrent-gc-syncs=5',
      // Its client's default 20 requests a second (shared by every controller) is what a fleet of
      // thousands of kwok nodes waits on: each new or rebooted node's not-ready taint is a write.
      '--kube-api-qps=200',
      '--kube-api-burst=400',
      // A Ready node loses its not-ready taint within a second, not five.
      '--node-monitor-period=1s',
      // A node whose Lease kwok renews a quarter of its duration apart stays Ready.
      `--node-monitor-grace-period=${Math.ceil(nodeLeaseSeconds * 1.25)}s`,
      '--v=1',
    ],
    join(workDir, 'kube-controller-manager.log'),
  );
}

/**
 * Controllers the components depend on. kwok nodes need `nodelifecycle`: the API server taints a
 * new Node not-ready, and only that controller lifts the taint once the node is Ready (pod
 * eviction from tainted nodes stays off unless `taint-eviction-controller` is named). Cluster
 * API's core manager is bound to an aggregated ClusterRole, which `clusterrole-aggregation` fills.
 */
export function withRequiredControllers(
  controllers: ControllerName[] | false | undefined,
  needs: { kwok: boolean; clusterApi: boolean },
): ControllerName[] {
  const list = [...(controllers || [])];
  if (needs.kwok && !list.includes('nodelifecycle')) list.push('nodelifecycle');
  if (needs.clusterApi && !list.includes('clusterrole-aggregation')) list.push('clusterrole-aggregation');
  return list;
}
