/** The Greeting controller's command line: the standard flags and `--enable-webhooks`. */
import {
  type CommandLine,
  type ParseOptionsConfig,
  packageVersion,
  parseCommandLine,
} from '@capstan/runtime';
import { GREETING_MANAGER } from './manager-name.js';
import type { GreetingOptions } from './operator.js';

/**
 * Parses main's arguments (without node and the script). `--help` and usage errors go through
 * `exit` (default `process.exit`).
 */
export function parseGreetingArgs(
  argv: readonly string[],
  io: Pick<ParseOptionsConfig, 'exit' | 'output'> = {},
): CommandLine<GreetingOptions> {
  return parseCommandLine<{ enableWebhooks: boolean }, GreetingOptions>(argv, {
    name: GREETING_MANAGER,
    description: 'Reconciles Greeting resources into ConfigMaps.',
    version: packageVersion(import.meta.url),
    defaults: { leaderElectionId: GREETING_MANAGER },
    extend: (command) =>
      command.option('--enable-webhooks', 'serve the defaulting and validating webhooks', false),
    options: (flags) => ({ webhooks: flags.enableWebhooks }),
    ...io,
  });
}
