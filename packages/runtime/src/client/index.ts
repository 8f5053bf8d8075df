/**
 * The client (`@capstan/runtime/client`): the typed {@link Client} reconcilers use, the
 * `ApiTransport` seam with its HTTP implementation for real servers, object and option types,
 * errors, the built-in kinds and kubeconfig loading. How requests are built and responses decoded
 * stays inside.
 */

export type { ApplyConfiguration, ApplyFields, ApplyValue } from '../api/apply-configuration.js';
export {
  ApiError,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isTerminal,
  isTooManyRequests,
  TerminalError,
} from '../api/errors.js';
export * from '../api/types.js';
export { KubeConfig } from '../kubeconfig/kube-config.js';
export { type LoadKubeConfigOptions, loadKubeConfig } from '../kubeconfig/kubeconfig.js';
export type {
  Cluster,
  ClusterAccess,
  Context,
  ExecConfig,
  ExecEnvVar,
  User,
} from '../kubeconfig/kubeconfig-types.js';
export { parseWarningHeader } from '../transport/api-warnings.js';
export {
  HttpTransport,
  type HttpTransportOptions,
  type RequestMetric,
  RequestTimeoutError,
} from '../transport/http-transport.js';
export { WatchIdleTimeoutError } from '../transport/http-watch.js';
export { defaultRetryAfterPolicy, type RetryAfterPolicy } from '../transport/retry-after.js';
export type { ApiTransport, WatchCallbacks, WatchHandle } from '../transport/transport.js';
export * from './builtin.js';
export type { CachedReader } from './cached-reader.js';
export {
  type ApplyOptions,
  Client,
  type ClientListOptions,
  type ClientOptions,
  type ReadOptions,
} from './client.js';
export { parseLabelSelector, SelectorParseError } from './selectors.js';
