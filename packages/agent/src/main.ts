#!/usr/bin/env node
/**
 * The update agent's main (one per node, from a DaemonSet): standard flags + agent flags →
 * Manager (never leader election: every node runs its own agent) → agent → run until SIGTERM.
 *   NODE_NAME=worker-1 node dist/main.js --source update-engine --drain-timeout 10m
 */
import { exitOnError, Manager, managerOptionsFromFlags, runManager } from '@capstan/runtime';
import { parseAgentArgs } from './flags.js';
import { AGENT_MANAGER } from './manager-name.js';
import { verifyNodeIdentity } from './node-identity.js';
import { addAgent } from './operator.js';
import { AGENT_EVENTS_SCOPE } from './permissions.js';

const commandLine = exitOnError(() => parseAgentArgs(process.argv.slice(2)));
// A wrong kubeconfig: one line saying what is wrong, not a stack.
const managerOptions = exitOnError(() => managerOptionsFromFlags(commandLine.standard));
const manager = Manager.create({
  ...managerOptions,
  eventSource: 'reboot.capstan.dev/agent',
  eventsScope: AGENT_EVENTS_SCOPE,
  fieldManager: AGENT_MANAGER,
});
try {
  await verifyNodeIdentity(manager.client, commandLine.options.agent.nodeName, {
    ...commandLine.options.identity,
    logger: manager.logger,
  });
} catch (err) {
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exit(1);
}
addAgent(manager, commandLine.options.agent);
await runManager(manager);
