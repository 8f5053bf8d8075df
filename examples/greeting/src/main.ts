#!/usr/bin/env node
/**
 * The Greeting controller's main: standard flags → manager → controller → run until SIGTERM.
 *   node dist/main.js --kubeconfig ~/.kube/config --leader-elect --leader-election-id greeting
 * With `--enable-webhooks` it also serves deploy/webhooks.yaml's webhooks on `--webhook-port`
 * with the certificate in `--webhook-cert-dir`.
 */
import { exitOnError, Manager, managerOptionsFromFlags, runManager } from '@capstan/runtime';
import { parseGreetingArgs } from './flags.js';
import { addGreeting } from './operator.js';

const commandLine = parseGreetingArgs(process.argv.slice(2));
// A wrong kubeconfig: one line saying what is wrong, not a stack.
const managerOptions = exitOnError(() => managerOptionsFromFlags(commandLine.standard));
const manager = Manager.create({
  ...managerOptions,
  eventSource: 'example.capstan.dev/greeting',
});
addGreeting(manager, commandLine.options);
await runManager(manager);
