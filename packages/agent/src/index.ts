/**
 * @packageDocumentation
 * `@capstan/agent`: the update agent (a DaemonSet). It learns from the OS that a reboot is needed
 * (update_engine over D-Bus, a sentinel file or command), reports it through node annotations, and
 * when the coordinator grants it, cordons, drains through the Eviction API and reboots through
 * logind. {@link addAgent} adds one to a manager. Test doubles for update_engine and logind on a private bus are in `src/testing`.
 */

export * from './api/index.js';
export * from './dbus/index.js';
export * from './decide/decide.js';
export { afterEvictions, DEFAULT_EVICTION_RETRY } from './decide/eviction-backoff.js';
export { afterRebootRefused, rebootRetryDelay } from './decide/reboot-retry.js';
export * from './flags.js';
export * from './host-namespaces.js';
export * from './image.js';
export * from './manager-name.js';
export * from './metrics.js';
export * from './operator.js';
export * from './os-release.js';
export * from './permissions.js';
export * from './rbac.js';
export * from './reboot-methods.js';
export { AgentReconciler, type AgentReconcilerDeps } from './reconciler.js';
export * from './sources/index.js';
export * from './testing/index.js';
