#!/usr/bin/env node
/**
 * The update agent's main (one per node, from a DaemonSet): standard flags + agent flags →
 * Manager (never leader election: every node runs its own agent) → agent → run until SIGTERM.
 *   NODE_NAME=worker-1 node dist/main.js --source update-engine --drain-timeout 10m
 */
import {
  exitOnError,
  Manager,
  managerOptionsFromFlags,
  packageVersion,
  parseStandardOptions,
  runManager,
} from '@capstan/runtime';
import { addAgent } from './agent.js';
import { type AgentFlags, addAgentFlags, agentOptionsFromFlags } from './flags.js';
import { addNodeIdentityFlags, type NodeIdentityFlags, verifyNodeIdentity } from './node-identity.js';
import { AGENT_EVENTS_SCOPE } from './permissions.js';

const { standard, extra } = parseStandardOptions<AgentFlags & NodeIdentityFlags>(process.argv.slice(2), {
  name: 'capstan-agent',
  description: 'Reports whether this node needs a reboot; when granted, cordons, drains and reboots it.',
  version: packageVersion(import.meta.url),
  leaderElection: false,
  extend: (cmd) => {
    addAgentFlags(cmd);
    addNodeIdentityFlags(cmd);
  },
});
const options = exitOnError(() => agentOptionsFromFlags(extra));
// A wrong kubeconfig: one line saying what is wrong, not a stack.
const managerOptions = exitOnError(() => managerOptionsFromFlags({ ...standard, leaderElect: false }));
const manager = Manager.create({
  ...managerOptions,
  eventSource: 'reboot.capstan.dev/agent',
  eventsScope: AGENT_EVENTS_SCOPE,
  fieldManager: 'capstan-agent',
});
try {
  await verifyNodeIdentity(manager.client, options.nodeName, {
    allowUnboundToken: extra.allowUnboundToken,
    logger: manager.logger,
  });
} catch (err) {
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exit(1);
}
addAgent(manager, options);
await runManager(manager);
