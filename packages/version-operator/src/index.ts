/**
 * @packageDocumentation
 * The version operator: the `RebootStack` resource, the catalogue of versions (read from the
 * coordinator's and agent's own `deploy/`), the pure decisions (render, upgrade order, rollout,
 * protocol migration and node mirroring) and the reconciler that applies them. It never
 * coordinates a reboot; the coordinator never deploys an agent.
 */

export * from './api/index.js';
export * from './applier.js';
export * from './catalogue.js';
export * from './decide/already-applied.js';
export * from './decide/default-groups.js';
export * from './decide/migration.js';
export * from './decide/migration-stall.js';
export * from './decide/mirror.js';
export * from './decide/render.js';
export * from './decide/rollout.js';
export * from './decide/status.js';
export * from './decide/upgrade.js';
export * from './flags.js';
export { addVersionOperator, type VersionOperatorHandle } from './operator.js';
export * from './permissions.js';
export * from './rbac.js';
export * from './reconciler.js';
