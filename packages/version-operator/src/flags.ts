/**
 * The version operator's flags, on top of the runtime's standard ones (leader election on the
 * `capstan-version-operator` Lease, metrics, probes, logging).
 */
import {
  type CommandLine,
  type ParseOptionsConfig,
  packageVersion,
  parseCommandLine,
  parseDuration,
} from '@capstan/runtime';
import { VERSION_OPERATOR_MANAGER } from './api/reboot-stack.js';

type Command = Parameters<NonNullable<ParseOptionsConfig['extend']>>[0];

/** The parsed flags. */
export interface VersionOperatorFlags {
  rolloutPollInterval: string;
  migrationStallTimeout: string;
}

/** What the flags configure. */
export interface VersionOperatorOptions {
  /** How often a stack is looked at again while it rolls out or migrates. */
  rolloutPollMs: number;
  /** How long a migration may wait on one thing before the stack reports it stalled (Degraded). */
  migrationStallMs: number;
}

/** Adds the version operator's flags to the command. */
export function addVersionOperatorFlags(command: Command): void {
  command.option(
    '--rollout-poll-interval <duration>',
    'how often a rolling-out or migrating stack is looked at again (changes come sooner)',
    '2s',
  );
  command.option(
    '--migration-stall-timeout <duration>',
    'how long a protocol migration may wait on one thing (a rollout, a group) before the stack is Degraded with MigrationStalled; it keeps waiting',
    '10m',
  );
}

/**
 * The options the flags say.
 * @throws Error naming the flag when a value is unusable.
 */
export function versionOperatorOptionsFromFlags(flags: VersionOperatorFlags): VersionOperatorOptions {
  return {
    rolloutPollMs: positiveDuration('--rollout-poll-interval', flags.rolloutPollInterval),
    migrationStallMs: positiveDuration('--migration-stall-timeout', flags.migrationStallTimeout),
  };
}

function positiveDuration(flag: string, value: string): number {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (err) {
    throw new Error(`${flag}: ${(err as Error).message}`);
  }
  if (!(ms > 0)) throw new Error(`${flag} must be positive, got "${value}"`);
  return ms;
}

/**
 * Parses main's arguments (without node and the script), as the Deployment passes them.
 * `--help` and usage errors go through `exit` (default `process.exit`).
 * @throws Error naming the flag when a flag's value is unusable.
 */
export function parseVersionOperatorArgs(
  argv: readonly string[],
  io: Pick<ParseOptionsConfig, 'exit' | 'output'> = {},
): CommandLine<VersionOperatorOptions> {
  return parseCommandLine<VersionOperatorFlags, VersionOperatorOptions>(argv, {
    name: VERSION_OPERATOR_MANAGER,
    version: packageVersion(import.meta.url),
    description:
      'Deploys, upgrades and migrates the reboot coordinator and the update agent from RebootStacks.',
    defaults: { leaderElectionId: VERSION_OPERATOR_MANAGER },
    extend: addVersionOperatorFlags,
    options: versionOperatorOptionsFromFlags,
    ...io,
  });
}
