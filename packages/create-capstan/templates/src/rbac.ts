/**
 * The controller as it runs in the cluster (deploy/deployment.yaml): `npm run gen:rbac` writes
 * deploy/rbac.yaml from what this wiring needs.
 */
import { Manager, type ManagerOptions } from '@capstan/runtime';
import { addWidget } from './operator.js';

export function rbacWiring(options: ManagerOptions) {
  const manager = Manager.create({
    leaderElection: { id: '__NAME__', namespace: '__NAME__' },
    eventSource: 'example.com/__NAME__',
    ...options,
  });
  addWidget(manager);
  return manager;
}
