/**
 * @packageDocumentation
 * The reboot coordinator: the annotation protocol shared with the update agents, the
 * `RebootGroup` resource, and the pure planner that decides grants within each group's budget.
 */
export * from './api/index.js';
export * from './planner/index.js';
