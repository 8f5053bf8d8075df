/** The options of `ControlPlane.start`: which components run beside etcd and kube-apiserver. */
import type { Assets } from './assets.js';
import type { ControllerName } from './controller-manager.js';
import type { CrdObject } from './crds.js';
import type { NodeSpec } from './nodes.js';

/** Which Cluster API providers run beside the core manager and the kubeadm bootstrap provider. */
export interface ClusterApiOptions {
  /** `'kubeadm'`: the KubeadmControlPlane provider (KCP) too. */
  controlPlane?: 'kubeadm';
}

/** Options of `ControlPlane.start`. */
export interface StartOptions {
  /**
   * CRDs to install (YAML file paths or objects) before `start` resolves, and before
   * kube-controller-manager starts: its garbage collector then knows their kinds at once, so
   * deleting an owner of such a kind cascades in well under a second. A CRD installed later
   * (`installCRDs`) is seen by the collector only at its next discovery, every 30 s.
   */
  crds?: Array<string | CrdObject>;
  /** Extra kube-apiserver flags, e.g. `['--feature-gates=X=true']`; later flags win. */
  apiServerFlags?: string[];
  /**
   * Run kube-controller-manager: `true` for the workload controllers and the garbage collector
   * (see `defaultControllers`), or the controllers to run. Off by default; node lifecycle stays off
   * unless named, so a failed node's pods are not evicted behind a test's back.
   */
  controllerManager?: boolean | ControllerName[];
  /** The same as `controllerManager` with a list (kept for existing callers). */
  controllers?: ControllerName[];
  /** Run kube-scheduler under its own identity (`system:kube-scheduler`), so pods get bound. */
  scheduler?: boolean;
  /**
   * Run kwok, which plays the kubelet for the Nodes `addNodes` creates (and only those). Also runs
   * kube-controller-manager's `nodelifecycle` controller, which lifts a Ready node's not-ready taint.
   */
  kwok?: boolean;
  /**
   * How long kwok's node Leases last, in seconds (default 40, the kubelet's). kwok renews each a
   * quarter of that apart, and the node lifecycle controller's grace period follows it (the
   * duration plus a quarter). A fleet of thousands asks for more: at 40 s, 1,000 nodes renew 100
   * Leases a second, more than 2 cores spare beside the work under test; at 240 s, 17.
   */
  nodeLeaseSeconds?: number;
  /** Nodes to add once kwok runs (implies `kwok`): a count or specs. */
  nodes?: number | NodeSpec[];
  /**
   * Run Cluster API's core manager and kubeadm bootstrap provider (CRDs, RBAC and identities
   * included; kube-controller-manager's `clusterrole-aggregation` runs too); with
   * `{ controlPlane: 'kubeadm' }` also the KubeadmControlPlane provider (KCP). Pair it with
   * `startWorkloadCluster` for Machines to find their Nodes, and KCP with `kubeadmGuest` for
   * machines that play kubeadm.
   */
  clusterApi?: boolean | ClusterApiOptions;
  /**
   * Run kube-apiserver with its watch cache (default false). Without it every watch is served by
   * etcd, so a watch resumes from any resourceVersion etcd still holds — also across
   * `restartApiServer()` — and history is lost only through `compact()`: deterministic for tests.
   * With it, behaviour is production-like: bookmarks are sent, and after a restart a watch from a
   * resourceVersion older than the new cache gets 410 Gone.
   */
  watchCache?: boolean;
  /** How long to wait for `/readyz`; default 60 s. */
  readyTimeoutMs?: number;
  /** Where binaries come from; default `resolveAssets` (with what the options need). */
  assets?: Assets;
}
