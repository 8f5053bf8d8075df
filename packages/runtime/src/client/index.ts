/**
 * The client (`@capstan/runtime/client`): the typed {@link Client} reconcilers use, the
 * `ApiTransport` seam with its HTTP implementation for real servers, object and option types,
 * errors, the built-in kinds and kubeconfig loading. How requests are built and responses decoded
 * stays inside.
 */

export { parseWarningHeader } from './api-warnings.js';
export * from './builtin.js';
export type { CachedReader } from './cached-reader.js';
export {
  type ApplyConfiguration,
  type ApplyOptions,
  Client,
  type ClientListOptions,
  type ClientOptions,
  type ReadOptions,
} from './client.js';
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
} from './errors.js';
export {
  HttpTransport,
  type HttpTransportOptions,
  type RequestMetric,
  RequestTimeoutError,
} from './http-transport.js';
export { WatchIdleTimeoutError } from './http-watch.js';
export { KubeConfig } from './kube-config.js';
export { type LoadKubeConfigOptions, loadKubeConfig } from './kubeconfig.js';
export type { Cluster, ClusterAccess, Context, ExecConfig, ExecEnvVar, User } from './kubeconfig-types.js';
export { defaultRetryAfterPolicy, type RetryAfterPolicy } from './retry-after.js';
export type { ApiTransport, WatchCallbacks, WatchHandle } from './transport.js';
export * from './types.js';
