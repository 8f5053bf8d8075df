/**
 * The coordinator's API: the annotation protocol the agents speak, the `RebootGroup` resource and
 * its validation. The agent imports its keys from here.
 */
export * from './budget.js';
export * from './coordinator-keys.js';
export * from './duration.js';
export * from './label-selector.js';
export * from './protocol.js';
export * from './reboot-group.js';
export * from './reboot-window.js';
export * from './validation.js';
