/**
 * capvcd's RBAC wiring: `deploy/rbac.yaml` is generated from {@link rbacWiring}
 * (`npm run gen:rbac -w packages/capvcd`); what it declares beyond its watches is `permissions.ts`.
 */
import { Manager, type ManagerOptions } from '@capstan/runtime';
import { EVENT_SOURCE } from './api/keys.js';
import { addCapvcd, type CapvcdOptions } from './operator.js';

/** The ServiceAccount deploy/manager.yaml runs as, and the roles' name. */
export const CAPVCD_RBAC = {
  name: 'capstan-capvcd',
  serviceAccount: { namespace: 'capvcd-system', name: 'capstan-capvcd' },
  withServiceAccount: true,
};

/**
 * capvcd wired as main wires it for deploy/manager.yaml (leader election in its namespace): what
 * `capstan gen rbac` reads, and what the RBAC test runs under exactly those rules.
 */
export function rbacWiring(
  options: Omit<ManagerOptions, 'transport'> & Pick<Required<ManagerOptions>, 'transport'>,
  capvcd: CapvcdOptions = {},
) {
  const manager = Manager.create({
    leaderElection: { id: CAPVCD_RBAC.name, namespace: CAPVCD_RBAC.serviceAccount.namespace },
    eventSource: EVENT_SOURCE,
    fieldManager: 'capstan-capvcd',
    ...options,
  });
  const handle = addCapvcd(manager, capvcd);
  return Object.assign(manager, { capvcd: handle });
}
