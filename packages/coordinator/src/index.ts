/**
 * @packageDocumentation
 * The reboot coordinator: the `RebootGroup` resource, the pure planner that decides grants within
 * each group's budget, and the reconciler, grant fence and FleetLock server that apply its plans
 * to a cluster. The annotation protocol it shares with the agents is `@capstan/reboot-protocol`.
 */
export * from './api/index.js';
export * from './decide/index.js';
export * from './fence.js';
export * from './flags.js';
export * from './fleetlock.js';
export * from './fleetlock-clients.js';
export * from './group-status.js';
export * from './image.js';
export * from './manager-name.js';
export * from './metrics.js';
export * from './notifications/index.js';
export { addCoordinator, type CoordinatorHandle } from './operator.js';
export * from './options.js';
export * from './permissions.js';
export * from './planner-service.js';
export * from './rbac.js';
export * from './reconciler.js';
export * from './resources.js';
export * from './round-report.js';
export * from './write-refusals.js';
