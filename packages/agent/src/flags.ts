/**
 * The agent's command-line flags (besides the standard ones) and what they build.
 */

import { PROTOCOL_NAMES, type ProtocolName } from '@capstan/reboot-protocol';
import {
  type CommandLine,
  type ParseOptionsConfig,
  packageVersion,
  parseCommandLine,
  parseDuration,
} from '@capstan/runtime';
import { choice, duration, exitCodes, wholeNumber } from './flag-values.js';
import { AGENT_MANAGER } from './manager-name.js';
import { addNodeIdentityFlags, type NodeIdentityFlags } from './node-identity.js';
import type { AgentOptions } from './operator.js';
import {
  CommandRebooter,
  REBOOT_METHODS,
  type RebootMethod,
  SignalRebooter,
  SYSTEMD_REBOOT_SIGNAL,
} from './reboot-methods.js';
import type { Rebooter } from './reconciler.js';
import { MACHINE_BOOT_ID_PATH, readMachineBootId } from './reconciler.js';
import { SentinelCommandSource } from './sources/sentinel-command-source.js';
import { SentinelFileSource } from './sources/sentinel-file-source.js';
import type { RebootNeededSource } from './sources/source.js';
import { UpdateEngineSource } from './sources/update-engine-source.js';

export { duration } from './flag-values.js';

/** Where "reboot needed" comes from. */
export const SOURCE_KINDS = ['update-engine', 'file', 'command'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** The agent's own flags, parsed. */
export interface AgentFlags {
  nodeName: string;
  source: SourceKind;
  rebootSentinel: string;
  rebootSentinelCommand?: string;
  sentinelHostNamespaces: boolean;
  rebootSentinelNeededExitCodes: number[];
  rebootSentinelNotNeededExitCodes?: number[];
  sentinelInterval: string;
  drainTimeout: string;
  drainGracePeriod: string;
  forceReboot: boolean;
  failureBackoff: string;
  protocol: ProtocolName;
  osReleasePath: string;
  bootIdPath: string;
  busAddress?: string;
  drainParallelism: number;
  evictionTimeout: string;
  quarantineAfter: number;
  quarantineWindow: string;
  rebootMethod: RebootMethod;
  rebootCommand: string;
  rebootSignal: number;
}

/** Adds the agent's flags to the standard command (pass as `extend` to `parseStandardOptions`). */
export const addAgentFlags: NonNullable<ParseOptionsConfig['extend']> = (cmd) => {
  // In this order in --help: the node and its source, the drain, the node's files, evictions and
  // quarantine, the reboot.
  addSourceFlags(cmd);
  addDrainFlags(cmd);
  addNodeFileFlags(cmd);
  addEvictionFlags(cmd);
  addRebootFlags(cmd);
};

type Command = Parameters<NonNullable<ParseOptionsConfig['extend']>>[0];

/** The node, and where "reboot needed" comes from. */
function addSourceFlags(cmd: Command): void {
  cmd
    .option('--node-name <name>', 'the node this agent runs on (default: $NODE_NAME)', process.env.NODE_NAME)
    .option(
      '--source <kind>',
      `where "reboot needed" comes from: ${SOURCE_KINDS.join(', ')}`,
      choice(SOURCE_KINDS, '--source'),
      'update-engine',
    )
    .option(
      '--reboot-sentinel <path>',
      'with --source file: reboot needed while this file exists',
      '/var/run/reboot-required',
    )
    .option(
      '--reboot-sentinel-command <command>',
      'with --source command: reboot needed while this command exits with a --reboot-sentinel-needed-exit-codes code (split on spaces, run without a shell)',
    )
    .option(
      '--sentinel-host-namespaces [bool]',
      "with --source command: run it in the host's namespaces (nsenter into PID 1's: needs hostPID and CAP_SYS_ADMIN, CAP_SYS_CHROOT, CAP_SYS_PTRACE; docs/security.md)",
      (v: string) => v !== 'false',
      false,
    )
    .option(
      '--reboot-sentinel-needed-exit-codes <codes>',
      'with --source command: exit codes meaning "reboot needed" (needs-restarting -r: 1; rpm-ostree status --pending-exit-77: 77)',
      exitCodes('--reboot-sentinel-needed-exit-codes'),
      [0],
    )
    .option(
      '--reboot-sentinel-not-needed-exit-codes <codes>',
      'with --source command: exit codes meaning "not needed"; any other is an error (default: every code not "needed")',
      exitCodes('--reboot-sentinel-not-needed-exit-codes'),
    )
    .option(
      '--sentinel-interval <duration>',
      'how often to check the sentinel file or command',
      duration('--sentinel-interval', { minMs: 100 }),
      '10s',
    );
}

/** How long a drain may take, what evicted pods get, and what follows a failure. */
function addDrainFlags(cmd: Command): void {
  cmd
    .option(
      '--drain-timeout <duration>',
      'give up a drain after this long ("0": never)',
      duration('--drain-timeout'),
      '10m',
    )
    .option(
      '--drain-grace-period <duration>',
      'termination grace period given to evicted pods ("-1s": each pod\'s own)',
      duration('--drain-grace-period', { minusOne: true }),
      '-1s',
    )
    .option(
      '--force-reboot [bool]',
      'reboot even when the drain timed out',
      (v: string) => v !== 'false',
      false,
    )
    .option(
      '--failure-backoff <duration>',
      'after a failed drain or reboot, wait this long before retrying',
      duration('--failure-backoff'),
      '5m',
    );
}

/** The annotation protocol and the node's own files: os-release and the boot ID. */
function addNodeFileFlags(cmd: Command): void {
  cmd
    .option(
      '--protocol <name>',
      `annotation protocol: ${PROTOCOL_NAMES.join(', ')}`,
      choice(PROTOCOL_NAMES, '--protocol'),
      'capstan',
    )
    .option('--os-release-path <path>', 'os-release file for the id and version labels', '/etc/os-release')
    .option(
      '--boot-id-path <path>',
      "this machine's boot ID, the truth over the Node's status (which a slow kubelet posts late); the agent refuses to start without it",
      MACHINE_BOOT_ID_PATH,
    );
}

/** How many evictions at once and for how long each, and when a reboot loop quarantines the node. */
function addEvictionFlags(cmd: Command): void {
  cmd
    .option(
      '--drain-parallelism <n>',
      'evictions in flight at once during a drain (1-100)',
      wholeNumber('--drain-parallelism', 1, 100),
      10,
    )
    .option(
      '--eviction-timeout <duration>',
      "one eviction request's time limit; a slower one is retried with the next round",
      duration('--eviction-timeout', { minMs: 1_000 }),
      '30s',
    )
    .option(
      '--quarantine-after <cycles>',
      'quarantine the node after this many reboot cycles within --quarantine-window while its source still asks (a reboot loop); 0: never',
      wholeNumber('--quarantine-after', 0, 9999, 'must be a whole number 0-9999'),
      3,
    )
    .option(
      '--quarantine-window <duration>',
      'the window --quarantine-after counts reboot cycles in',
      duration('--quarantine-window', { minMs: 1_000 }),
      '6h',
    );
}

/** How the node is rebooted, and the D-Bus system bus the default (logind) reboots through. */
function addRebootFlags(cmd: Command): void {
  cmd
    .option(
      '--reboot-method <method>',
      `how to reboot: ${REBOOT_METHODS.join(', ')} (command: --reboot-command on the host through nsenter, needs hostPID and CAP_SYS_ADMIN, CAP_SYS_CHROOT, CAP_SYS_PTRACE; signal: --reboot-signal to PID 1, needs hostPID)`,
      choice(REBOOT_METHODS, '--reboot-method'),
      'logind',
    )
    .option(
      '--reboot-command <command>',
      'with --reboot-method command: the host command that reboots (split on spaces, no shell)',
      'systemctl reboot',
    )
    .option(
      '--reboot-signal <number>',
      'with --reboot-method signal: the signal sent to PID 1 (systemd: SIGRTMIN+5 = 39)',
      wholeNumber('--reboot-signal', 1, 64),
      SYSTEMD_REBOOT_SIGNAL,
    )
    .option(
      '--bus-address <address>',
      'D-Bus system bus address (default: $DBUS_SYSTEM_BUS_ADDRESS or /var/run/dbus)',
    );
}

/** Turns the agent's flags into {@link AgentOptions}; throws on an unusable combination. */
export function agentOptionsFromFlags(flags: AgentFlags): AgentOptions {
  if (!flags.nodeName) throw new Error('--node-name (or $NODE_NAME) is required');
  // Without the machine's own boot ID a late kubelet's stale one makes the last boot's grant look
  // like this boot's: a second reboot. No fallback: refuse to start.
  if (!flags.bootIdPath)
    throw new Error('--boot-id-path must name the boot ID file (default /proc/sys/kernel/random/boot_id)');
  if (!readMachineBootId(flags.bootIdPath))
    throw new Error(
      `--boot-id-path ${flags.bootIdPath}: cannot read this machine's boot ID (the agent does not start without it)`,
    );
  const graceMs = parseDuration(flags.drainGracePeriod);
  return {
    nodeName: flags.nodeName,
    protocol: flags.protocol,
    ...(flags.busAddress ? { busAddress: flags.busAddress } : {}),
    source: sourceFromFlags(flags),
    ...rebooterFromFlags(flags),
    osReleasePath: flags.osReleasePath,
    bootIdPath: flags.bootIdPath,
    drainTimeoutMs: parseDuration(flags.drainTimeout),
    drainGracePeriodSeconds: graceMs < 0 ? -1 : Math.round(graceMs / 1000),
    forceReboot: flags.forceReboot,
    failureBackoffMs: parseDuration(flags.failureBackoff),
    evictionParallelism: flags.drainParallelism ?? 10,
    evictionTimeoutMs: parseDuration(flags.evictionTimeout ?? '30s'),
    quarantineAfter: flags.quarantineAfter ?? 3,
    quarantineWindowMs: parseDuration(flags.quarantineWindow ?? '6h'),
  };
}

/** The rebooter the flags select; none for logind (the agent's default, on its bus). */
export function rebooterFromFlags(flags: AgentFlags): { rebooter?: Rebooter } {
  switch (flags.rebootMethod ?? 'logind') {
    case 'logind':
      return {};
    case 'command': {
      const command = (flags.rebootCommand ?? '').split(/\s+/).filter(Boolean);
      if (command.length === 0) throw new Error('--reboot-method command needs --reboot-command');
      return { rebooter: new CommandRebooter({ command, hostNamespaces: {} }) };
    }
    case 'signal':
      return { rebooter: new SignalRebooter({ signal: flags.rebootSignal ?? SYSTEMD_REBOOT_SIGNAL }) };
  }
}

/** The reboot-needed source the flags select. */
export function sourceFromFlags(flags: AgentFlags): RebootNeededSource {
  const intervalMs = parseDuration(flags.sentinelInterval);
  if (flags.sentinelHostNamespaces && flags.source !== 'command')
    throw new Error('--sentinel-host-namespaces applies only to --source command');
  switch (flags.source) {
    case 'update-engine':
      return new UpdateEngineSource(flags.busAddress ? { address: flags.busAddress } : {});
    case 'file':
      return new SentinelFileSource({ path: flags.rebootSentinel, intervalMs });
    case 'command': {
      const command = (flags.rebootSentinelCommand ?? '').split(/\s+/).filter(Boolean);
      if (command.length === 0) throw new Error('--source command needs --reboot-sentinel-command');
      const needed = flags.rebootSentinelNeededExitCodes ?? [0];
      const both = needed.filter((c) => flags.rebootSentinelNotNeededExitCodes?.includes(c));
      if (both.length > 0)
        throw new Error(`exit code(s) ${both.join(', ')} cannot mean both "needed" and "not needed"`);
      return new SentinelCommandSource({
        command,
        intervalMs,
        ...(flags.sentinelHostNamespaces ? { hostNamespaces: {} } : {}),
        neededExitCodes: needed,
        ...(flags.rebootSentinelNotNeededExitCodes
          ? { notNeededExitCodes: flags.rebootSentinelNotNeededExitCodes }
          : {}),
      });
    }
  }
}

/** What main starts the agent with: its options, and how to check the node's identity first. */
export interface AgentStart {
  agent: AgentOptions;
  identity: NodeIdentityFlags;
}

/**
 * Parses main's arguments (without node and the script), as the DaemonSet passes them. Never
 * leader election: every node runs its own agent. `--help` and usage errors go through `exit`
 * (default `process.exit`).
 * @throws Error naming the flag when an agent flag's value is unusable.
 */
export function parseAgentArgs(
  argv: readonly string[],
  io: Pick<ParseOptionsConfig, 'exit' | 'output'> = {},
): CommandLine<AgentStart> {
  // Without the leader-election flags, `standard.leaderElect` is false whatever argv says.
  return parseCommandLine<AgentFlags & NodeIdentityFlags, AgentStart>(argv, {
    name: AGENT_MANAGER,
    description: 'Reports whether this node needs a reboot; when granted, cordons, drains and reboots it.',
    version: packageVersion(import.meta.url),
    leaderElection: false,
    extend: (cmd) => {
      addAgentFlags(cmd);
      addNodeIdentityFlags(cmd);
    },
    options: (flags) => ({
      agent: agentOptionsFromFlags(flags),
      identity: { allowUnboundToken: flags.allowUnboundToken },
    }),
    ...io,
  });
}
