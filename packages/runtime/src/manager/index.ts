/**
 * The manager (`@capstan/runtime/manager`): runs an operator's controllers and other runnables
 * with a shared client and cache, leader election, metrics and probes, and a graceful stop; the
 * standard command-line flags of an operator's `main`; structured logging.
 */

export {
  createLogger,
  type LogContext,
  type LogFormat,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  loggerFor,
} from '../log/logger.js';
export { type BindAddress, formatBindAddress, parseBindAddress } from './cli/bind-address.js';
export { type CommandLine, type CommandLineConfig, parseCommandLine } from './cli/command-line.js';
export { exitOnError } from './cli/exit-on-error.js';
export {
  type LeaseNamespace,
  leaseNamespace,
  managerOptionsFromFlags,
  ownNamespace,
  podNamespace,
} from './cli/manager-options.js';
export {
  type OptionsOutput,
  type ParsedOptions,
  type ParseOptionsConfig,
  parseStandardOptions,
  type StandardOptions,
} from './cli/options.js';
export { packageVersion } from './cli/package-version.js';
export {
  LeaderElector,
  type LeaderElectorOptions,
  type StoppedLeadingInfo,
} from './leaderelection/leader-elector.js';
export { type LeaderElectionOptions, LeadershipLostError, Manager, type ManagerOptions } from './manager.js';
export {
  MetricsRegistry,
  type MetricsRegistryOptions,
  type RestRequestInfo,
} from './metrics-registry.js';
export { EVENTS_PERMISSION, managerPermissions } from './permissions.js';
export type { Check, ProbesServerPorts } from './probes-server.js';
export {
  type PermissionSource,
  type RbacObject,
  type RbacTarget,
  type RbacWiringOptions,
  rbacFor,
  rbacYaml,
} from './rbac.js';
export { runManager, signalOnTerminate } from './run-manager.js';
export type { Runnable, RunnableScope } from './runnable.js';
export type { MetricsAccessTtls } from './secure-metrics/metrics-access.js';
export type { MetricsSecureOptions } from './secure-metrics/secure-metrics.js';
