/**
 * @packageDocumentation
 * The reboot coordinator: the annotation protocol shared with the update agents, the
 * `RebootGroup` resource, the pure planner that decides grants within each group's budget, and
 * the reconciler, grant fence and FleetLock server that apply its plans to a cluster.
 */
export * from './api/index.js';
export {
  addCoordinator,
  addCoordinatorFlags,
  type CoordinatorFlags,
  type CoordinatorHandle,
  coordinatorOptionsFromFlags,
} from './coordinator.js';
export * from './fence.js';
export * from './fleetlock.js';
export * from './metrics.js';
export * from './options.js';
export * from './planner/index.js';
export * from './reconciler.js';
export * from './resources.js';
