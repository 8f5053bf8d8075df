/**
 * The version operator's RBAC wiring: `deploy/rbac.yaml` is generated from {@link rbacWiring}
 * (`npm run gen:rbac -w packages/version-operator`); what it declares beyond its watches is
 * `permissions.ts`.
 */
import { Manager, type RbacWiringOptions } from '@capstan/runtime';
import { VERSION_OPERATOR_MANAGER } from './api/reboot-stack.js';
import type { Catalogue } from './catalogue.js';
import { addVersionOperator } from './operator.js';

/** The ServiceAccount deploy/operator.yaml runs as, and the roles' name. */
export const VERSION_OPERATOR_RBAC = {
  name: VERSION_OPERATOR_MANAGER,
  serviceAccount: { namespace: 'capstan-system', name: VERSION_OPERATOR_MANAGER },
  withServiceAccount: true,
};

/**
 * The version operator wired as main wires it (leader election in its namespace): what
 * `capstan gen rbac` reads, and what the RBAC test runs under exactly those rules.
 */
export function rbacWiring(
  options: RbacWiringOptions,
  operator: { catalogue?: Catalogue; rolloutPollMs?: number } = {},
) {
  const manager = Manager.create({
    leaderElection: {
      id: VERSION_OPERATOR_MANAGER,
      namespace: VERSION_OPERATOR_RBAC.serviceAccount.namespace,
    },
    eventSource: 'operator.capstan.dev/version-operator',
    fieldManager: VERSION_OPERATOR_MANAGER,
    ...options,
  });
  addVersionOperator(manager, operator);
  return manager;
}
