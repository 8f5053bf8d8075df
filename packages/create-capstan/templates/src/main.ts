#!/usr/bin/env node
/**
 * The program: standard flags (--kubeconfig, --namespace, --leader-elect, --metrics-bind-address,
 * --health-probe-bind-address, --log-level, --version, ...) → manager → controller → run until
 * SIGTERM, which drains and exits 0.
 */
import {
  Manager,
  managerOptionsFromFlags,
  packageVersion,
  parseStandardOptions,
  runManager,
} from '@capstan/runtime';
import { addWidgetController } from './reconciler.js';

const { standard } = parseStandardOptions(process.argv.slice(2), {
  name: '__NAME__',
  description: 'Reconciles Widgets into ConfigMaps.',
  version: packageVersion(import.meta.url),
  defaults: { leaderElectionId: '__NAME__' },
});
const manager = Manager.create(managerOptionsFromFlags(standard));
addWidgetController(manager);
await runManager(manager);
