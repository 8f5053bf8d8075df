export { type BindAddress, formatBindAddress, parseBindAddress } from './bind-address.js';
export { managerOptionsFromFlags, ownNamespace } from './from-options.js';
export {
  LeaderElector,
  type LeaderElectorOptions,
  microTime,
  type StoppedLeadingInfo,
} from './leader-election.js';
export {
  createLogger,
  type LogContext,
  type LogFormat,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  loggerFor,
} from './logger.js';
export { type LeaderElectionOptions, LeadershipLostError, Manager, type ManagerOptions } from './manager.js';
export { MetricsRegistry, type MetricsRegistryOptions, type RestRequestInfo } from './metrics.js';
export {
  type OptionsOutput,
  type ParsedOptions,
  type ParseOptionsConfig,
  parseStandardOptions,
  type StandardOptions,
} from './options.js';
export {
  type Check,
  ProbesServer,
  type ProbesServerOptions,
  type ProbesServerPorts,
} from './probes-server.js';
export type { Runnable, RunnableScope } from './runnable.js';
export { runManager, signalOnTerminate } from './signals.js';
export { Tokens } from './tokens.js';
