#!/usr/bin/env node
/**
 * The provider's main: standard flags (leader election, metrics, probes, namespace) + provider
 * flags → manager → the VCDCluster and VCDMachine controllers → run until SIGTERM (exit 0, the
 * leader lease released).
 *   node dist/main.js --leader-elect --leader-election-namespace capvcd-system --concurrency 10
 */
import { Manager, managerOptionsFromFlags, runManager } from '@capstan/runtime';
import { EVENT_SOURCE } from './api/keys.js';
import { addCapvcd } from './controllers.js';
import { type CapvcdCommandLine, parseCapvcdArgs } from './flags.js';

/** What is wrong, in one line (no stack), then exit 2 as for any usage error. */
function usageError(err: unknown): never {
  process.stderr.write(`error: ${(err as Error).message}\n(run with --help for usage)\n`);
  process.exit(2);
}

let commandLine: CapvcdCommandLine;
let managerOptions: ReturnType<typeof managerOptionsFromFlags>;
try {
  commandLine = parseCapvcdArgs(process.argv.slice(2));
  managerOptions = managerOptionsFromFlags(commandLine.standard);
} catch (err) {
  usageError(err);
}
const manager = Manager.create({
  ...managerOptions,
  eventSource: EVENT_SOURCE,
  fieldManager: 'capstan-capvcd',
});
const handle = addCapvcd(manager, commandLine.options);
await runManager(manager);
handle.connections.close();
