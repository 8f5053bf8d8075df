/** The pure reboot planner: snapshot in, node writes, group status, events and the next wake-up out. */
export * from './events.js';
export * from './finding.js';
export * from './gate.js';
export * from './group-policy.js';
export * from './health-gates.js';
export * from './node-snapshot.js';
export * from './node-state.js';
export * from './node-write.js';
export * from './plan.js';
export * from './queue.js';
export * from './reboot-cycle.js';
export * from './status.js';
export * from './wake.js';
