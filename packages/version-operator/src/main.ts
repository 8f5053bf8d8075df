#!/usr/bin/env node
/**
 * The version operator's main: standard flags + its own → manager (leader election on the
 * `capstan-version-operator` Lease) → the RebootStack controller → run until SIGTERM.
 */
import {
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
let options: ReturnType<typeof versionOperatorOptionsFromFlags>;
try {
  options = versionOperatorOptionsFromFlags(extra);
} catch (err) {
  process.stderr.write(`error: ${(err as Error).message}\n(run with --help for usage)\n`);
  process.exit(2);
}
const manager = Manager.create({
  ...managerOptionsFromFlags(standard),
  eventSource: 'operator.capstan.dev/version-operator',
  fieldManager: FIELD_MANAGER,
});
addVersionOperator(manager, options);
await runManager(manager);
