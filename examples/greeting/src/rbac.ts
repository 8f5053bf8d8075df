import { Manager, type RbacWiringOptions } from '@capstan/runtime';
import { addGreeting } from './operator.js';

/** The roles' name and the ServiceAccount deploy/controller.yaml runs the controller as. */
export const GREETING_RBAC = {
  name: 'greeting-controller',
  serviceAccount: { namespace: 'greeting-system', name: 'greeting-controller' },
};

/**
 * The controller wired as `main` wires it in deploy/controller.yaml (leader election in its
 * namespace, webhooks on): `capstan gen rbac` reads its RBAC from this, and the RBAC test runs it.
 */
export function rbacWiring(options: RbacWiringOptions) {
  const manager = Manager.create({
    leaderElection: { id: 'greeting-controller', namespace: GREETING_RBAC.serviceAccount.namespace },
    eventSource: 'example.capstan.dev/greeting',
    ...options,
  });
  addGreeting(manager, { webhooks: true });
  return manager;
}
