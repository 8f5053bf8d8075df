/**
 * The agent's RBAC wiring: `deploy/rbac.yaml` is generated from {@link rbacWiring}
 * (`npm run gen:rbac -w packages/agent`); what it declares beyond its watch is `permissions.ts`.
 */
import { Manager, type RbacWiringOptions } from '@capstan/runtime';
import { AGENT_MANAGER } from './manager-name.js';
import { type AgentOptions, addAgent } from './operator.js';
import { AGENT_EVENTS_SCOPE } from './permissions.js';

/** The ServiceAccount deploy/daemonset.yaml runs as, and the roles' name. */
export const AGENT_RBAC = {
  name: AGENT_MANAGER,
  serviceAccount: { namespace: 'capstan-system', name: AGENT_MANAGER },
  withServiceAccount: true,
};

/**
 * An agent wired as main wires it (no leader election: one per node): what `capstan gen rbac`
 * reads, and what the RBAC test runs under exactly those rules.
 */
export function rbacWiring(options: RbacWiringOptions, agent: Partial<AgentOptions> = {}) {
  const manager = Manager.create({
    eventSource: 'reboot.capstan.dev/agent',
    fieldManager: AGENT_MANAGER,
    eventsScope: AGENT_EVENTS_SCOPE,
    ...options,
  });
  // A source and rebooter that touch nothing unless the test gives its own.
  addAgent(manager, {
    nodeName: 'node',
    source: { start: async () => undefined, stop: async () => undefined },
    rebooter: { reboot: async () => undefined },
    ...agent,
  });
  return manager;
}
