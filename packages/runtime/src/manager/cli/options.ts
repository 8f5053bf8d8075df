/**
 * The command-line flags every operator's `main` shares, named and defaulted as controller-runtime
 * operators name them, so that manifests written for Go operators carry over.
 */
import type { Command } from 'commander';
import { formatDuration, parseDuration } from '../../helpers/duration.js';
import type { LogFormat, LogLevel } from '../../log/logger.js';
import { commander } from './flag-values.js';
import { buildCommand } from './standard-flags.js';

/** The standard flags, parsed. Durations are in milliseconds. */
export interface StandardOptions {
  /** `--kubeconfig`: a kubeconfig file (else `KUBECONFIG`, in-cluster, `~/.kube/config`). */
  kubeconfig?: string;
  /** `--context`: a kubeconfig context other than the current one. */
  context?: string;
  /** `--namespace`: watch and reconcile only this namespace, or these (`a,b`); default all. */
  namespace?: string;
  /** `--leader-elect`: run only while holding the leader lease. Default false. */
  leaderElect: boolean;
  /** `--leader-election-id`: the Lease's name. Required with `--leader-elect`. */
  leaderElectionId?: string;
  /** `--leader-election-namespace`: the Lease's namespace (default: the pod's, else the kubeconfig context's). */
  leaderElectionNamespace?: string;
  /** `--leader-elect-lease-duration` (default 15 s). */
  leaseDurationMs: number;
  /** `--leader-elect-renew-deadline` (default 10 s). */
  renewDeadlineMs: number;
  /** `--leader-elect-retry-period` (default 2 s). */
  retryPeriodMs: number;
  /** `--metrics-bind-address` (default `:8080`; `0` disables). */
  metricsBindAddress: string;
  /**
   * `--metrics-secure`: serve `/metrics` over HTTPS to callers whose token may `get /metrics`
   * (TokenReview and SubjectAccessReview). Default false: plain HTTP.
   */
  metricsSecure: boolean;
  /** `--metrics-cert-path`: the folder holding the metrics serving certificate; without it `--metrics-secure` serves a self-signed one. */
  metricsCertPath?: string;
  /** `--metrics-cert-name`: the certificate's file in that folder (default `tls.crt`). */
  metricsCertName: string;
  /** `--metrics-cert-key`: the key's file in that folder (default `tls.key`). */
  metricsCertKey: string;
  /** `--health-probe-bind-address` (default `:8081`; `0` disables). */
  healthProbeBindAddress: string;
  /** `--enable-debug-endpoint`: serve `/debug/queues`. Default false. */
  enableDebugEndpoint: boolean;
  /** `--debug-bind-address` (default `0`: with the health probes). */
  debugBindAddress: string;
  /** `--log-level` (default `info`). */
  logLevel: LogLevel;
  /** `--log-format` (default `json`). */
  logFormat: LogFormat;
  /** `--webhook-port`: where the webhook server listens (default 9443), if the operator serves webhooks. */
  webhookPort?: number;
  /** `--webhook-cert-dir`: the folder holding `tls.crt` and `tls.key` (default `$TMPDIR/k8s-webhook-server/serving-certs`). */
  webhookCertDir?: string;
}

/** Where commander writes help and errors; tests capture them. */
export interface OptionsOutput {
  writeOut(text: string): void;
  writeErr(text: string): void;
}

/** Options of {@link parseStandardOptions}. */
export interface ParseOptionsConfig {
  /** The program's name in usage lines. */
  name: string;
  /** One line saying what the operator does. */
  description?: string;
  /** Shown by `--version` when set (e.g. `packageVersion(import.meta.url)`). */
  version?: string;
  /**
   * Offer the leader election flags (`--leader-elect` and the five that tune it). Default true;
   * false for a program that never elects, such as a DaemonSet's agent on every node.
   */
  leaderElection?: boolean;
  /** Adds the operator's own flags (and arguments) to the command. */
  extend?: (command: Command) => void;
  /** Defaults the operator prefers, e.g. its `leaderElectionId`; flags still win. */
  defaults?: Partial<StandardOptions>;
  /** `argv` holds only the arguments (`user`, default) or starts with node and the script (`node`). */
  from?: 'user' | 'node';
  /** Called after `--help` (code 0) or a usage error (code 2). Default `process.exit`. */
  exit?: (code: number) => never;
  /** Default: the process's standard output and error. */
  output?: OptionsOutput;
}

/** What {@link parseStandardOptions} returns. */
export interface ParsedOptions<Extra = Record<string, unknown>> {
  standard: StandardOptions;
  /** The values of the flags the operator added, camel-cased as commander names them. */
  extra: Extra;
  /** Positional arguments, if the operator declared any. */
  args: string[];
}

/** The standard options' values before any flag: the runtime's, overlaid with the operator's. */
export type Defaults = Omit<
  StandardOptions,
  | 'kubeconfig'
  | 'context'
  | 'namespace'
  | 'leaderElectionId'
  | 'leaderElectionNamespace'
  | 'webhookPort'
  | 'webhookCertDir'
  | 'metricsCertPath'
> &
  Partial<StandardOptions>;

const STANDARD_DEFAULTS: Defaults = {
  leaderElect: false,
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
  metricsBindAddress: ':8080',
  metricsSecure: false,
  metricsCertName: 'tls.crt',
  metricsCertKey: 'tls.key',
  healthProbeBindAddress: ':8081',
  enableDebugEndpoint: false,
  debugBindAddress: '0',
  logLevel: 'info',
  logFormat: 'json',
};

// The commander keys of the standard flags, so that everything else is the operator's.
const STANDARD_KEYS = new Set([
  'kubeconfig',
  'context',
  'namespace',
  'leaderElect',
  'leaderElectionId',
  'leaderElectionNamespace',
  'leaderElectLeaseDuration',
  'leaderElectRenewDeadline',
  'leaderElectRetryPeriod',
  'metricsBindAddress',
  'metricsSecure',
  'metricsCertPath',
  'metricsCertName',
  'metricsCertKey',
  'healthProbeBindAddress',
  'enableDebugEndpoint',
  'debugBindAddress',
  'logLevel',
  'logFormat',
  'webhookPort',
  'webhookCertDir',
]);

/** How much longer than a retry period the renew deadline must be (client-go's jitter factor). */
const JITTER_FACTOR = 1.2;

/**
 * Parses the standard flags plus the operator's own. On `--help` (and `--version`) prints and
 * exits with 0; on a bad flag prints the error and a hint and exits with 2.
 *
 * @example
 * const { standard, extra } = parseStandardOptions(process.argv.slice(2), {
 *   name: 'coordinator',
 *   description: 'Coordinates node reboots',
 *   defaults: { leaderElectionId: 'capstan-coordinator' },
 *   extend: (cmd) => cmd.option('--max-unavailable <n>', 'nodes rebooting at once', '1'),
 * });
 */
export function parseStandardOptions<Extra = Record<string, unknown>>(
  argv: readonly string[],
  config: ParseOptionsConfig,
): ParsedOptions<Extra> {
  const defaults: Defaults = { ...STANDARD_DEFAULTS, ...config.defaults };
  const exit = config.exit ?? ((code: number): never => process.exit(code));
  const program = buildCommand(config, defaults);
  try {
    program.parse([...argv], { from: config.from ?? 'user' });
    return collect<Extra>(program, defaults, config.version !== undefined);
  } catch (err) {
    if (err instanceof commander().CommanderError) {
      const ok = err.code === 'commander.helpDisplayed' || err.code === 'commander.version';
      return exit(ok ? 0 : 2);
    }
    throw err;
  }
}

/** A duration flag's value in milliseconds; its default when the flag is not offered. */
const duration = (value: unknown, fallback: number) =>
  value === undefined ? fallback : parseDuration(String(value));

function collect<Extra>(program: Command, defaults: Defaults, hasVersion: boolean): ParsedOptions<Extra> {
  const o = program.opts<Record<string, unknown>>();
  const str = (key: string) => (o[key] === undefined ? undefined : String(o[key]));
  const standard: StandardOptions = {
    kubeconfig: str('kubeconfig'),
    context: str('context'),
    namespace: str('namespace'),
    leaderElect: o.leaderElect === true,
    leaderElectionId: str('leaderElectionId'),
    leaderElectionNamespace: str('leaderElectionNamespace'),
    leaseDurationMs: duration(o.leaderElectLeaseDuration, defaults.leaseDurationMs),
    renewDeadlineMs: duration(o.leaderElectRenewDeadline, defaults.renewDeadlineMs),
    retryPeriodMs: duration(o.leaderElectRetryPeriod, defaults.retryPeriodMs),
    metricsBindAddress: str('metricsBindAddress') ?? defaults.metricsBindAddress,
    metricsSecure: o.metricsSecure === true,
    metricsCertPath: str('metricsCertPath'),
    metricsCertName: str('metricsCertName') ?? defaults.metricsCertName,
    metricsCertKey: str('metricsCertKey') ?? defaults.metricsCertKey,
    healthProbeBindAddress: str('healthProbeBindAddress') ?? defaults.healthProbeBindAddress,
    enableDebugEndpoint: o.enableDebugEndpoint === true,
    debugBindAddress: str('debugBindAddress') ?? defaults.debugBindAddress,
    logLevel: (str('logLevel') ?? defaults.logLevel) as LogLevel,
    logFormat: (str('logFormat') ?? defaults.logFormat) as LogFormat,
    webhookPort: o.webhookPort === undefined ? undefined : Number(o.webhookPort),
    webhookCertDir: str('webhookCertDir'),
  };
  for (const key of [
    'kubeconfig',
    'context',
    'namespace',
    'leaderElectionId',
    'leaderElectionNamespace',
    'webhookPort',
    'webhookCertDir',
    'metricsCertPath',
  ] as const) {
    if (standard[key] === undefined) delete standard[key];
  }

  const problem = leaderElectionProblem(standard);
  if (problem) program.error(`error: ${problem}`, { exitCode: 2, code: 'capstan.invalidOptions' });

  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(o)) {
    if (!STANDARD_KEYS.has(key) && !(hasVersion && key === 'version')) extra[key] = value;
  }
  return { standard, extra: extra as Extra, args: [...program.args] };
}

/** Checks the leader election settings as client-go does; returns what is wrong, if anything. */
function leaderElectionProblem(o: StandardOptions): string | undefined {
  const d = formatDuration;
  if (o.leaderElect && !o.leaderElectionId) return '--leader-election-id is required with --leader-elect';
  if (o.leaseDurationMs < 1000)
    return `--leader-elect-lease-duration ${d(o.leaseDurationMs)} must be at least 1s`;
  if (o.retryPeriodMs <= 0) return `--leader-elect-retry-period ${d(o.retryPeriodMs)} must be positive`;
  if (o.renewDeadlineMs >= o.leaseDurationMs) {
    return (
      `--leader-elect-renew-deadline ${d(o.renewDeadlineMs)} must be shorter than ` +
      `--leader-elect-lease-duration ${d(o.leaseDurationMs)}`
    );
  }
  if (o.renewDeadlineMs <= JITTER_FACTOR * o.retryPeriodMs) {
    return (
      `--leader-elect-renew-deadline ${d(o.renewDeadlineMs)} must be longer than ${JITTER_FACTOR} × ` +
      `--leader-elect-retry-period ${d(o.retryPeriodMs)}`
    );
  }
  return undefined;
}
