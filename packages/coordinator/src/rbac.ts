/**
 * The coordinator's RBAC wiring: `deploy/rbac.yaml` is generated from {@link rbacWiring}
 * (`npm run gen:rbac -w packages/coordinator`); what it declares beyond its watches is
 * `permissions.ts`.
 */
import { Manager, type RbacWiringOptions } from '@capstan/runtime';
import { COORDINATOR_MANAGER } from './manager-name.js';
import { addCoordinator } from './operator.js';
import type { CoordinatorOptions } from './options.js';

/** The ServiceAccount deploy/coordinator.yaml runs as, and the roles' name. */
export const COORDINATOR_RBAC = {
  name: COORDINATOR_MANAGER,
  serviceAccount: { namespace: 'capstan-system', name: COORDINATOR_MANAGER },
  withServiceAccount: true,
};

/**
 * The coordinator wired as deploy/coordinator.yaml runs it, with every optional part that a flag
 * turns on (FleetLock), so the shipped role allows each: what `capstan gen rbac` reads, and
 * what the RBAC test runs under exactly those rules.
 */
export function rbacWiring(options: RbacWiringOptions, coordinator: Partial<CoordinatorOptions> = {}) {
  const namespace = COORDINATOR_RBAC.serviceAccount.namespace;
  const manager = Manager.create({
    leaderElection: { id: COORDINATOR_MANAGER, namespace },
    eventSource: 'reboot.capstan.dev/coordinator',
    fieldManager: COORDINATOR_MANAGER,
    ...options,
  });
  addCoordinator(manager, { namespace, fleetlock: { bindAddress: '127.0.0.1:0' }, ...coordinator });
  return manager;
}
