/**
 * @packageDocumentation
 * `@capstan/reboot-protocol`: the node annotation and label protocol the reboot coordinator and
 * the update agents speak: the keys under our prefix and FLUO's, how booleans, timestamps and
 * failure markers are written and read (garbage is reported, never thrown), and the coordinator's
 * and the agent's bookkeeping keys, and where the coordinator's `RebootGroup` resource lives. Plain data and pure functions; no dependencies.
 */
export * from './agent-keys.js';
export * from './coordinator-keys.js';
export * from './protocol.js';
export * from './reboot-group.js';
