/**
 * The coordinator's API: the `RebootGroup` resource, its budget, windows and validation. The
 * annotation protocol the agents speak is its own package, `@capstan/reboot-protocol`.
 */
export * from './budget.js';
export * from './notification-validation.js';
export * from './reboot-calendar.js';
export * from './reboot-group.js';
export * from './reboot-window.js';
export * from './validation.js';
