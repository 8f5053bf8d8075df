/**
 * @packageDocumentation
 * `@capstan/envtest` starts a real etcd and kube-apiserver (optionally kube-controller-manager)
 * for tests, in the spirit of controller-runtime's envtest. Binaries come from
 * `KUBEBUILDER_ASSETS`, an on-disk cache, or a build with the machine's Go.
 */
export {
  type Assets,
  AssetsUnavailableError,
  defaultCacheRoot,
  type ResolveAssetsOptions,
  resolveAssets,
} from './assets.js';
export {
  type ControllerName,
  ControlPlane,
  type ControlPlaneInfo,
  type CrdObject,
  type StartOptions,
} from './control-plane.js';
export { type ApplyOptions, type ManifestObject, readManifests } from './manifests.js';
export { type PodBoundTokenOptions, podBoundKubeConfig } from './tokens.js';
export { etcdVersion, kubernetesVersion } from './versions.js';
export {
  installWebhooks,
  type WebhookConfiguration,
  WebhookInstallation,
  type WebhookInstallOptions,
  WebhookServingCert,
} from './webhooks.js';

import { ControlPlane, type StartOptions } from './control-plane.js';

/** Starts a control plane; shorthand for {@link ControlPlane.start}. */
export const start = (options?: StartOptions): Promise<ControlPlane> => ControlPlane.start(options);
