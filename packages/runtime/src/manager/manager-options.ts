/**
 * What a {@link Manager} is created with: where to connect, what to watch, leader election, the
 * servers it runs, logging, timeouts and the defaults of its client and events.
 */
import type { InformerCacheOptions } from '../cache/informer-cache.js';
import type { Clock } from '../clock.js';
import type { Permission } from '../controller/permissions.js';
import type { ClusterAccess } from '../kubeconfig/kubeconfig-types.js';
import type { LogFormat, Logger, LogLevel } from '../log/logger.js';
import type { ApiTransport } from '../transport/transport.js';
import type { WebhookServerOptions } from '../webhook/server.js';
import type { LeaderElector } from './leaderelection/leader-elector.js';
import type { LeadershipLostError, Manager } from './manager.js';
import type { MetricsSecureOptions } from './secure-metrics/secure-metrics.js';

/** Leader election settings; see {@link LeaderElector} for the semantics. */
export interface LeaderElectionOptions {
  /** The Lease's name. */
  id: string;
  /** The Lease's namespace. */
  namespace: string;
  /** Why that namespace (e.g. `the kubeconfig context "dev"`): said once when campaigning starts. */
  namespaceFrom?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Default: `hostname_<random>`. */
  identity?: string;
  /**
   * What losing the lease (not a graceful stop) does: `exit` (default) makes `start` reject with
   * {@link LeadershipLostError}, so the process exits non-zero and is restarted clean; `standby`
   * stops the leader-only runnables and, once they have returned, campaigns again (if they have
   * not within `gracefulShutdownTimeoutMs`, or a controller left a reconcile running past its
   * drain timeout, `start` rejects: the process restarts clean).
   */
  onLoss?: 'exit' | 'standby';
}

/** Options of {@link Manager.create}. */
export interface ManagerOptions {
  /**
   * Where to connect; required unless `transport` is given. The runtime's `KubeConfig` (see
   * `loadKubeConfig`) or client-node's: anything that is a {@link ClusterAccess}.
   */
  kubeConfig?: ClusterAccess;
  /** Speak to this server instead (tests pass the test kit's `FakeCluster`). */
  transport?: ApiTransport;
  /** Watch and reconcile only this namespace (default: all). */
  namespace?: string;
  /** Watch and reconcile only these namespaces (an informer each per kind); wins over `namespace`. */
  namespaces?: readonly string[];
  /** Off when absent. */
  leaderElection?: LeaderElectionOptions;
  /** `:8080` (default), `127.0.0.1:9090`, `:0` (ephemeral) or `0` (off). */
  metricsBindAddress?: string;
  /** Serve `/metrics` over HTTPS to ServiceAccounts allowed `get /metrics` only; plain HTTP without. */
  metricsSecure?: MetricsSecureOptions;
  /** `:8081` (default) or `0` (off). */
  healthProbeBindAddress?: string;
  /** Serve `/debug/queues` (per controller, per key: why enqueued, failures, next run). Off by default. */
  enableDebugEndpoint?: boolean;
  debugBindAddress?: string;
  logger?: Logger;
  logLevel?: LogLevel;
  logFormat?: LogFormat;
  /**
   * How long a graceful stop waits for in-flight reconciles, and a standby for the work of the
   * term it lost. Default 30 s.
   */
  gracefulShutdownTimeoutMs?: number;
  /** `/readyz` fails for an informer whose watch has failed this long (default 2 min). */
  informerFailureThresholdMs?: number;
  /** How long `start` waits for caches to sync. Default 2 min. */
  cacheSyncTimeoutMs?: number;
  /** Field manager for server-side apply. Default `capstan`. */
  fieldManager?: string;
  /** The client's cached reads never older than its own writes (see `ClientOptions`). Default true. */
  readYourWrites?: boolean;
  /** `reportingController` of events, e.g. `reboot.capstan.dev/coordinator`. Default `capstan`. */
  eventSource?: string;
  /**
   * Where its events go, for the RBAC they need: one namespace (and the role holding it) when all
   * the objects it records about live there; cluster-scoped objects' events go to `default`.
   * Default: any namespace (a ClusterRole rule).
   */
  eventsScope?: Pick<Permission, 'namespace' | 'role'>;
  cache?: Omit<InformerCacheOptions, 'clock'>;
  clock?: Clock;
  /** The webhook server (port, host, cert folder); it starts only if a webhook is registered. */
  webhook?: Omit<WebhookServerOptions, 'metrics' | 'logger'>;
}
