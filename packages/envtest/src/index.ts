/**
 * @packageDocumentation
 * `@capstan/envtest` starts a real etcd and kube-apiserver for tests, in the spirit of
 * controller-runtime's envtest, and optionally a whole simulated cluster: kube-controller-manager,
 * kube-scheduler, kwok (Nodes that run pods, reboot and fail) and Cluster API with workload
 * clusters. Binaries come from `KUBEBUILDER_ASSETS` and `CAPSTAN_*_BINARY`, an on-disk cache, or
 * a build with the machine's Go from the Go module proxy.
 */

export { startAlertmanager } from './alertmanager.js';
export {
  type Assets,
  AssetsUnavailableError,
  type ClusterApiAssets,
  type ClusterctlAssets,
  defaultCacheRoot,
  type ExtraComponent,
  type KubeadmControlPlaneAssets,
  type KwokAssets,
  type ResolveAssetsOptions,
  resolveAssets,
} from './assets.js';
export { auditUnderRbac, type RbacUnderAudit } from './audit-under-rbac.js';
export { aggregateToManagerLabel, withContractLabels, withConversionWebhook } from './cluster-api.js';
export { type ComponentName, components } from './components.js';
export { ControlPlane, type ControlPlaneInfo, type StartOptions } from './control-plane.js';
export { type ControllerName, defaultControllers } from './controller-manager.js';
export type { CrdObject } from './crds.js';
export { moduleSource } from './go-build.js';
export {
  decodeGuestinfoValue,
  type GuestBootstrap,
  type KubeadmStep,
  kubeadmDocuments,
  readGuestBootstrap,
} from './guest-bootstrap.js';
export type { ApiAnswer } from './http.js';
export {
  type InClusterIpam,
  type InClusterIpamHost,
  inClusterIpamCrds,
  startInClusterIpam,
} from './ipam-in-cluster.js';
export { type GuestNode, KubeadmGuest, type KubeadmGuestOptions } from './kubeadm-guest.js';
export {
  bootstrapTokenSecret,
  controlPlaneComponents,
  controlPlaneNodeRole,
  controlPlanePods,
  initUploads,
  mirrorPod,
  nodeRegistration,
  usesExternalEtcd,
} from './kubeadm-objects.js';
export { kwokManagedValue, kwokNodeAnnotation } from './kwok.js';
export type { RebootOptions } from './kwok-nodes.js';
export { type ApplyOptions, type ManifestObject, readManifests } from './manifests.js';
export type { MonitoringOptions, MonitoringServer } from './monitoring-process.js';
export { type NodeSpec, type NodeTaint, nodeObject, readyStatus } from './nodes.js';
export { freePort, freePorts } from './ports.js';
export { type PrometheusOptions, type PrometheusRule, startPrometheus } from './prometheus.js';
export { type ServiceAccountRef, serviceAccountUnder, whenAuthorized } from './rbac-under-test.js';
export { type AdmissionResourceRule, refuseWrites, type WriteRefusal } from './refuse-writes.js';
export type { ClusterApiOptions } from './start-options.js';
export { type TestCrd, type TestCrdOptions, type TestKind, testCrd } from './test-crd.js';
export { type PodBoundTokenOptions, podBoundKubeConfig } from './tokens.js';
export {
  type ResolveToolOptions,
  resolveTool,
  type ToolName,
  type ToolSpec,
  toolFolder,
  tools,
} from './tools.js';
export { clusterApiVersion, etcdVersion, kubernetesVersion, kwokVersion } from './versions.js';
export {
  installWebhooks,
  type WebhookConfiguration,
  WebhookInstallation,
  type WebhookInstallOptions,
  WebhookServingCert,
} from './webhooks.js';
export {
  kubeconfigSecret,
  startWorkloadCluster,
  type WorkloadCluster,
  type WorkloadClusterOptions,
} from './workload-cluster.js';

import { ControlPlane, type StartOptions } from './control-plane.js';

/** Starts a control plane; shorthand for {@link ControlPlane.start}. */
export const start = (options?: StartOptions): Promise<ControlPlane> => ControlPlane.start(options);
