#!/usr/bin/env node
/**
 * The version operator's main: standard flags + its own → manager (leader election on the
 * `capstan-version-operator` Lease) → the RebootStack controller → run until SIGTERM.
 */
import { exitOnError, Manager, managerOptionsFromFlags, runManager } from '@capstan/runtime';
import { VERSION_OPERATOR_MANAGER } from './api/reboot-stack.js';
import { parseVersionOperatorArgs } from './flags.js';
import { addVersionOperator } from './operator.js';

const commandLine = exitOnError(
  () => parseVersionOperatorArgs(process.argv.slice(2)),
  '(run with --help for usage)',
);
// A wrong kubeconfig: one line saying what is wrong, not a stack.
const managerOptions = exitOnError(() => managerOptionsFromFlags(commandLine.standard));
const manager = Manager.create({
  ...managerOptions,
  eventSource: 'operator.capstan.dev/version-operator',
  fieldManager: VERSION_OPERATOR_MANAGER,
});
addVersionOperator(manager, commandLine.options);
await runManager(manager);
