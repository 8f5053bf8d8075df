/**
 * Controllers (`@capstan/runtime/controller`): the builder (for/owns/watches), the controller that
 * runs a reconciler on a work queue, predicates, and the reconciler's types. How a reconcile's
 * outcome becomes a queue operation stays inside.
 */
export {
  type AdmissionWebhooks,
  type BuilderDeps,
  ControllerBuilder,
  controllerOwnerRequests,
  type DefaultRestriction,
  type SourceOptions,
} from './builder.js';
export {
  Controller,
  type ControllerDeps,
  type ControllerOptions,
  ReconcileTimeoutError,
  type Source,
} from './controller.js';
export { type ControllerMetrics, noopControllerMetrics } from './controller-metrics.js';
export {
  type ObjectReader,
  type ObjectReconcileContext,
  type ObjectReconcileOutcome,
  type ObjectReconciler,
  objectReconciler,
} from './object-reconciler.js';
export {
  mergePermissions,
  OWNER_WRITE_VERBS,
  type Permission,
  Permissions,
  permissionOn,
  READ_VERBS,
  type Verb,
} from './permissions.js';
export {
  annotationsChanged,
  generationChanged,
  labelsChanged,
  or,
  type Predicate,
  predicate,
  resourceVersionChanged,
} from './predicates.js';
export type { ReconcileContext, ReconcileFunction, Reconciler, Result } from './reconciler.js';
export { parseRequestKey, type Request, requestFor, requestKey } from './request.js';
