/**
 * The standard flags as a commander command: connection, leader election, what the operator
 * serves, logging and webhooks, in that order in `--help`, then the operator's own (`extend`).
 */
import type { Command } from 'commander';
import { formatDuration } from '../../helpers/duration.js';
import { LOG_FORMATS, LOG_LEVELS } from '../../log/logger.js';
import { checkAddress, checkChoice, checkDuration, checkPort, commander, parseBool } from './flag-values.js';
import type { Defaults, ParseOptionsConfig } from './options.js';

/** The command that parses the standard flags, with `defaults`, and the operator's. */
export function buildCommand(config: ParseOptionsConfig, defaults: Defaults) {
  const program = new (commander().Command)(config.name);
  if (config.description) program.description(config.description);
  if (config.version) program.version(config.version);
  program.exitOverride().showHelpAfterError('(run with --help for usage)').allowExcessArguments(false);
  if (config.output) {
    const out = config.output;
    program.configureOutput({ writeOut: (s) => out.writeOut(s), writeErr: (s) => out.writeErr(s) });
  }
  // In this order in --help.
  const add = optionAdder(program);
  addConnectionFlags(add, defaults);
  if (config.leaderElection !== false) addLeaderElectionFlags(add, defaults);
  addServingFlags(add, defaults);
  addLogFlags(add, defaults);
  addWebhookFlags(add, defaults);
  config.extend?.(program);
  return program;
}

/** Adds one option to a command: its flags, help, default and value parser. */
type AddOption = (
  flags: string,
  description: string,
  value?: unknown,
  parse?: (v: string) => unknown,
) => void;

function optionAdder(program: Command): AddOption {
  return (flags, description, value, parse) => {
    const option = new (commander().Option)(flags, description);
    if (parse) option.argParser(parse);
    // Set when the option is created, so that --help shows it and commander stores it.
    if (value !== undefined) option.default(value);
    program.addOption(option);
  };
}

/** Where the API server is: kubeconfig, context, namespaces. */
function addConnectionFlags(add: AddOption, d: Defaults): void {
  add(
    '--kubeconfig <path>',
    'kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)',
    d.kubeconfig,
  );
  add('--context <name>', 'kubeconfig context to use (default: the current context)', d.context);
  add(
    '--namespace <ns>',
    'restrict the operator to this namespace, or these (a,b) (default: all namespaces)',
    d.namespace,
  );
}

/** The leader election Lease and its timing. */
function addLeaderElectionFlags(add: AddOption, d: Defaults): void {
  add(
    '--leader-elect [bool]',
    'elect a leader among replicas; only the leader reconciles',
    d.leaderElect,
    parseBool,
  );
  add('--leader-election-id <name>', "the leader election Lease's name", d.leaderElectionId);
  add(
    '--leader-election-namespace <ns>',
    "the leader election Lease's namespace (default: the pod's, else the kubeconfig context's)",
    d.leaderElectionNamespace,
  );
  add(
    '--leader-elect-lease-duration <duration>',
    'how long a lease lasts without renewal',
    formatDuration(d.leaseDurationMs),
    checkDuration,
  );
  add(
    '--leader-elect-renew-deadline <duration>',
    'how long the leader keeps trying to renew before it steps down',
    formatDuration(d.renewDeadlineMs),
    checkDuration,
  );
  add(
    '--leader-elect-retry-period <duration>',
    'how often to try to acquire or renew',
    formatDuration(d.retryPeriodMs),
    checkDuration,
  );
}

/** What the operator serves: metrics (plain or secure), health probes, the debug endpoint. */
function addServingFlags(add: AddOption, d: Defaults): void {
  add(
    '--metrics-bind-address <address>',
    'where /metrics listens; "0" disables',
    d.metricsBindAddress,
    checkAddress,
  );
  add(
    '--metrics-secure [bool]',
    'serve /metrics over HTTPS to callers allowed "get /metrics" (TokenReview, SubjectAccessReview)',
    d.metricsSecure,
    parseBool,
  );
  add(
    '--metrics-cert-path <dir>',
    'folder of the metrics serving certificate, reloaded when it changes (default: self-signed at start)',
    d.metricsCertPath,
  );
  add('--metrics-cert-name <file>', 'the metrics certificate file in --metrics-cert-path', d.metricsCertName);
  add('--metrics-cert-key <file>', 'the metrics key file in --metrics-cert-path', d.metricsCertKey);
  add(
    '--health-probe-bind-address <address>',
    'where /healthz and /readyz listen; "0" disables',
    d.healthProbeBindAddress,
    checkAddress,
  );
  add('--enable-debug-endpoint [bool]', 'serve /debug/queues', d.enableDebugEndpoint, parseBool);
  add(
    '--debug-bind-address <address>',
    'where /debug/queues listens; "0" serves it with the health probes',
    d.debugBindAddress,
    checkAddress,
  );
}

/** The log level and format. */
function addLogFlags(add: AddOption, d: Defaults): void {
  add('--log-level <level>', `log level: ${LOG_LEVELS.join(', ')}`, d.logLevel, checkChoice(LOG_LEVELS));
  add(
    '--log-format <format>',
    `log format: ${LOG_FORMATS.join(', ')}`,
    d.logFormat,
    checkChoice(LOG_FORMATS),
  );
}

/** The webhook server's port and certificate. */
function addWebhookFlags(add: AddOption, d: Defaults): void {
  add('--webhook-port <port>', 'where the webhook server listens (default 9443)', d.webhookPort, checkPort);
  add(
    '--webhook-cert-dir <dir>',
    'folder holding the webhook serving certificate tls.crt and key tls.key, reloaded when they change',
    d.webhookCertDir,
  );
}
