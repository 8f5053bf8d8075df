#!/usr/bin/env node
/**
 * The provider's main: standard flags (leader election, metrics, probes, namespace) + provider
 * flags → manager → the VCDCluster and VCDMachine controllers → run until SIGTERM (exit 0, the
 * leader lease released).
 *   node dist/main.js --leader-elect --leader-election-namespace capvcd-system --concurrency 10
 */
import { exitOnError, Manager, managerOptionsFromFlags, runManager } from '@capstan/runtime';
import { EVENT_SOURCE } from './api/keys.js';
import { parseCapvcdArgs } from './flags.js';
import { CAPVCD_MANAGER } from './manager-name.js';
import { addCapvcd } from './operator.js';

const commandLine = exitOnError(() => parseCapvcdArgs(process.argv.slice(2)), '(run with --help for usage)');
// A wrong kubeconfig: one line saying what is wrong, not a stack (and no usage hint: the flags were fine).
const managerOptions = exitOnError(() => managerOptionsFromFlags(commandLine.standard));
const manager = Manager.create({
  ...managerOptions,
  eventSource: EVENT_SOURCE,
  fieldManager: CAPVCD_MANAGER,
});
const handle = addCapvcd(manager, commandLine.options);
await runManager(manager);
handle.connections.close();
