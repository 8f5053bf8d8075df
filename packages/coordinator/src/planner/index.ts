/** The pure reboot planner: snapshot in, node writes and group status out. */
export * from './finding.js';
export * from './group-policy.js';
export * from './node-snapshot.js';
export * from './node-state.js';
export * from './node-write.js';
export * from './plan.js';
export * from './reboot-cycle.js';
