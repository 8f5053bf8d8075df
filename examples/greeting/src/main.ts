#!/usr/bin/env node
/**
 * The Greeting controller's main: standard flags → manager → controller → run until SIGTERM.
 *   node dist/main.js --kubeconfig ~/.kube/config --leader-elect --leader-election-id greeting
 */
import { Manager, managerOptionsFromFlags, parseStandardOptions, runManager } from '@capstan/runtime';
import { addGreetingController } from './controller.js';

const { standard } = parseStandardOptions(process.argv.slice(2), {
  name: 'greeting-controller',
  description: 'Reconciles Greeting resources into ConfigMaps.',
  defaults: { leaderElectionId: 'greeting-controller' },
});
const manager = Manager.create({
  ...managerOptionsFromFlags(standard),
  eventSource: 'example.capstan.dev/greeting',
});
addGreetingController(manager);
await runManager(manager);
