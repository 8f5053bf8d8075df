#!/usr/bin/env node
/**
 * The version operator's main: standard flags + its own → manager (leader election on the
 * `capstan-version-operator` Lease) → the RebootStack controller → run until SIGTERM.
 */
import {
  exitOnError,
  Manager,
  managerOptionsFromFlags,
  packageVersion,
  parseStandardOptions,
  runManager,
} from '@capstan/runtime';
import { FIELD_MANAGER } from './api/reboot-stack.js';
import {
  addVersionOperatorFlags,
  type VersionOperatorFlags,
  versionOperatorOptionsFromFlags,
} from './flags.js';
import { addVersionOperator } from './version-operator.js';

const { standard, extra } = parseStandardOptions<VersionOperatorFlags>(process.argv.slice(2), {
  name: 'capstan-version-operator',
  version: packageVersion(import.meta.url),
  description:
    'Deploys, upgrades and migrates the reboot coordinator and the update agent from RebootStacks.',
  defaults: { leaderElectionId: 'capstan-version-operator' },
  extend: addVersionOperatorFlags,
});
const options = exitOnError(() => versionOperatorOptionsFromFlags(extra), '(run with --help for usage)');
// A wrong kubeconfig: one line saying what is wrong, not a stack.
const managerOptions = exitOnError(() => managerOptionsFromFlags(standard));
const manager = Manager.create({
  ...managerOptions,
  eventSource: 'operator.capstan.dev/version-operator',
  fieldManager: FIELD_MANAGER,
});
addVersionOperator(manager, options);
await runManager(manager);
