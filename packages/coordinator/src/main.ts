#!/usr/bin/env node
/**
 * The reboot coordinator's main: standard flags + coordinator flags → manager (leader election on
 * the `capstan-coordinator` Lease by default) → controller (+ FleetLock) → run until SIGTERM.
 *   node dist/main.js --leader-elect --default-max-unavailable 25% --fleetlock-bind-address :9090
 */
import { exitOnError, Manager, managerOptionsFromFlags, runManager } from '@capstan/runtime';
import { parseCoordinatorArgs } from './flags.js';
import { COORDINATOR_MANAGER } from './manager-name.js';
import { addCoordinator } from './operator.js';

const commandLine = exitOnError(
  () => parseCoordinatorArgs(process.argv.slice(2)),
  '(run with --help for usage)',
);
// A wrong kubeconfig: one line saying what is wrong, not a stack.
const managerOptions = exitOnError(() => managerOptionsFromFlags(commandLine.standard));
const manager = Manager.create({
  ...managerOptions,
  eventSource: 'reboot.capstan.dev/coordinator',
  fieldManager: COORDINATOR_MANAGER,
});
addCoordinator(manager, commandLine.options);
await runManager(manager);
