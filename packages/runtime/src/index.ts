/**
 * @packageDocumentation
 * `@capstan/runtime`: write Kubernetes controllers in TypeScript with controller-runtime's
 * semantics. The root holds what an operator's `main` and reconcilers use every day: the manager
 * and its flags, the client and its errors, the reconciler's types, predicates, and the helpers
 * (conditions, finalizers, owner references, createOrUpdate, events). Everything else lives in a
 * subpath per concept: `@capstan/runtime/client` (transports, built-in kinds),
 * `/cache` (reflectors, stores, informers), `/workqueue`, `/controller` (builder, controller),
 * `/manager` (leader election, metrics, logging, flags) and `/testing` (fake cluster, manual clock).
 */

export {
  ApiError,
  apiVersionOf,
  Client,
  defineResource,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isTooManyRequests,
  type KubeObject,
  metadataOnly,
  type ObjectKey,
  type ObjectMeta,
  type PartialObjectMetadata,
  type ResourceType,
  TerminalError,
  type UnstructuredObject,
} from './client/index.js';
export {
  type Clock,
  MAX_TIMER_DELAY_MS,
  realClock,
  settlesWithin,
  sleep,
  type TimerHandle,
} from './clock.js';
export {
  annotationsChanged,
  type Controller,
  type ControllerBuilder,
  generationChanged,
  labelsChanged,
  type ObjectReconcileContext,
  type ObjectReconciler,
  or,
  type Permission,
  Permissions,
  type Predicate,
  parseRequestKey,
  permissionOn,
  predicate,
  type ReconcileContext,
  type ReconcileFunction,
  type Reconciler,
  type Request,
  type Result,
  requestKey,
  resourceVersionChanged,
  type Verb,
} from './controller/index.js';
export * from './helpers/index.js';
// The runtime's own KubeConfig: loading it (and a request with certs or tokens) imports no client-node.
export { KubeConfig } from './kubeconfig/kube-config.js';
export { type LoadKubeConfigOptions, loadKubeConfig } from './kubeconfig/kubeconfig.js';
export type { Cluster, ClusterAccess, Context, ExecConfig, User } from './kubeconfig/kubeconfig-types.js';
export {
  type CommandLine,
  type CommandLineConfig,
  exitOnError,
  type Logger,
  Manager,
  type ManagerOptions,
  managerOptionsFromFlags,
  type ParseOptionsConfig,
  packageVersion,
  parseCommandLine,
  parseStandardOptions,
  type RbacTarget,
  type RbacWiringOptions,
  rbacFor,
  rbacYaml,
  runManager,
  type StandardOptions,
} from './manager/index.js';
export {
  AdmissionDenied,
  type AdmissionOptions,
  type Defaulter,
  fieldInvalid,
  fieldRequired,
  type Validator,
} from './webhook/index.js';
