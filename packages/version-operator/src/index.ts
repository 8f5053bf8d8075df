/**
 * @packageDocumentation
 * The version operator: the `RebootStack` resource, the catalogue of versions (read from the
 * coordinator's and agent's own `deploy/`), the pure decisions (render, upgrade order, rollout,
 * protocol migration and node mirroring) and the reconciler that applies them. It never
 * coordinates a reboot; the coordinator never deploys an agent.
 */

export * from './already-applied.js';
export * from './api/index.js';
export * from './applier.js';
export * from './catalogue.js';
export * from './default-groups.js';
export * from './flags.js';
export * from './migration.js';
export * from './migration-stall.js';
export * from './mirror.js';
export * from './permissions.js';
export * from './rbac.js';
export * from './reconciler.js';
export * from './render.js';
export * from './rollout.js';
export * from './status.js';
export * from './upgrade.js';
export { addVersionOperator, type VersionOperatorHandle } from './version-operator.js';
