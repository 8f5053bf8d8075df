import { Manager, type RbacWiringOptions } from '@capstan/runtime';
import { GREETING_MANAGER } from './manager-name.js';
import { addGreeting } from './operator.js';

/** The roles' name and the ServiceAccount deploy/controller.yaml runs the controller as. */
export const GREETING_RBAC = {
  name: GREETING_MANAGER,
  serviceAccount: { namespace: 'greeting-system', name: GREETING_MANAGER },
};

/**
 * The controller wired as `main` wires it in deploy/controller.yaml (leader election in its
 * namespace, webhooks on): `capstan gen rbac` reads its RBAC from this, and the RBAC test runs it.
 */
export function rbacWiring(options: RbacWiringOptions) {
  const manager = Manager.create({
    leaderElection: { id: GREETING_MANAGER, namespace: GREETING_RBAC.serviceAccount.namespace },
    eventSource: 'example.capstan.dev/greeting',
    ...options,
  });
  addGreeting(manager, { webhooks: true });
  return manager;
}
