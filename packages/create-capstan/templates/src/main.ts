#!/usr/bin/env node
/**
 * The program: standard flags (--kubeconfig, --namespace, --leader-elect, --metrics-bind-address,
 * --health-probe-bind-address, --log-level, --version, ...) → manager → controller → run until
 * SIGTERM, which drains and exits 0.
 */
import {
  exitOnError,
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
// A kubeconfig that is missing or wrong: one line saying so (exit code 2), not a stack trace.
const managerOptions = exitOnError(() => managerOptionsFromFlags(standard));
// Events this program records say it sent them (events.k8s.io reportingController).
const manager = Manager.create({ ...managerOptions, eventSource: 'example.com/__NAME__' });
addWidgetController(manager);
await runManager(manager);
