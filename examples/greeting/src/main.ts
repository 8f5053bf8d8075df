#!/usr/bin/env node
/**
 * The Greeting controller's main: standard flags → manager → controller → run until SIGTERM.
 *   node dist/main.js --kubeconfig ~/.kube/config --leader-elect --leader-election-id greeting
 * With `--enable-webhooks` it also serves deploy/webhooks.yaml's webhooks on `--webhook-port`
 * with the certificate in `--webhook-cert-dir`.
 */
import {
  exitOnError,
  Manager,
  managerOptionsFromFlags,
  packageVersion,
  parseStandardOptions,
  runManager,
} from '@capstan/runtime';
import { addGreetingController } from './controller.js';

const { standard, extra } = parseStandardOptions<{ enableWebhooks: boolean }>(process.argv.slice(2), {
  name: 'greeting-controller',
  description: 'Reconciles Greeting resources into ConfigMaps.',
  version: packageVersion(import.meta.url),
  defaults: { leaderElectionId: 'greeting-controller' },
  extend: (command) =>
    command.option('--enable-webhooks', 'serve the defaulting and validating webhooks', false),
});
// A wrong kubeconfig: one line saying what is wrong, not a stack.
const managerOptions = exitOnError(() => managerOptionsFromFlags(standard));
const manager = Manager.create({
  ...managerOptions,
  eventSource: 'example.capstan.dev/greeting',
});
addGreetingController(manager, { webhooks: extra.enableWebhooks });
await runManager(manager);
