#!/usr/bin/env node
/**
 * The reboot coordinator's main: standard flags + coordinator flags → manager (leader election on
 * the `capstan-coordinator` Lease by default) → controller (+ FleetLock) → run until SIGTERM.
 *   node dist/main.js --leader-elect --default-max-unavailable 25% --fleetlock-bind-address :9090
 */
import {
  exitOnError,
  Manager,
  managerOptionsFromFlags,
  packageVersion,
  parseStandardOptions,
  runManager,
} from '@capstan/runtime';
import { ownNamespace } from '@capstan/runtime/manager';
import { addCoordinator } from './coordinator.js';
import { addCoordinatorFlags, type CoordinatorFlags, coordinatorOptionsFromFlags } from './flags.js';

const { standard, extra } = parseStandardOptions<CoordinatorFlags>(process.argv.slice(2), {
  name: 'capstan-coordinator',
  description: 'Coordinates node reboots: grants them within each RebootGroup budget, in order and windows.',
  version: packageVersion(import.meta.url),
  defaults: { leaderElectionId: 'capstan-coordinator' },
  extend: addCoordinatorFlags,
});
const options = exitOnError(
  () => coordinatorOptionsFromFlags(extra, standard.leaderElectionNamespace ?? ownNamespace()),
  '(run with --help for usage)',
);
// A wrong kubeconfig: one line saying what is wrong, not a stack.
const managerOptions = exitOnError(() => managerOptionsFromFlags(standard));
const manager = Manager.create({
  ...managerOptions,
  eventSource: 'reboot.capstan.dev/coordinator',
  fieldManager: 'capstan-coordinator',
});
addCoordinator(manager, options);
await runManager(manager);
