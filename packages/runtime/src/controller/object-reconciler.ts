import { isNotFound } from '../api/errors.js';
import type { KubeObject, ObjectKey, ResourceType } from '../api/types.js';
import type { ReconcileContext, Reconciler, Result } from './reconciler.js';
import type { Request } from './request.js';

/** What an {@link ObjectReconciler} is given besides the object: the reconcile's context and its key. */
export interface ObjectReconcileContext extends ReconcileContext {
  /** The key the object was read by. */
  readonly request: Request;
}

/** What an object reconciler returns: nothing on success, or a {@link Result}. */
// biome-ignore lint/suspicious/noConfusingVoidType: an async reconciler may resolve to nothing
export type ObjectReconcileOutcome = Promise<Result | undefined | void>;

/**
 * A reconciler handed the object itself (controller-runtime's `ObjectReconciler`, kube-rs's
 * `reconcile(Arc<K>)`): the runtime reads it from the cache, so the get / not-found / deleted
 * opening every key reconciler starts with is written once, here. An object that no longer exists
 * is not reconciled (its owned objects go with it through owner references). An object being
 * deleted (a `deletionTimestamp`) goes to `cleanup`, or nowhere without one.
 */
export interface ObjectReconciler<T extends KubeObject> {
  /** Makes the world match `object`, which exists and is not being deleted. */
  reconcile(object: T, context: ObjectReconcileContext): ObjectReconcileOutcome;
  /** Called while `object` is being deleted (it has a `deletionTimestamp`); must be idempotent. */
  cleanup?(object: T, context: ObjectReconcileContext): ObjectReconcileOutcome;
  /**
   * The finalizer this reconciler keeps on its objects (set by `withFinalizer`): the generated
   * RBAC then lets it patch the kind and update its `finalizers` subresource.
   */
  readonly finalizer?: string;
}

/** How an object reconciler's object is read: the manager's client (cached, read-your-writes). */
export interface ObjectReader {
  get<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey): Promise<T>;
}

/**
 * A key reconciler running `reconciler` on the object of kind `type` that `reader` finds for the
 * key: nothing when it is gone, `cleanup` when it is being deleted, `reconcile` otherwise.
 */
export function objectReconciler<T extends KubeObject>(
  reader: ObjectReader,
  type: ResourceType<T>,
  reconciler: ObjectReconciler<T>,
): Reconciler {
  return {
    async reconcile(request, context) {
      let object: T;
      try {
        object = await reader.get(type, request);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
      const objectContext = withRequest(context, request);
      if (object.metadata.deletionTimestamp) return reconciler.cleanup?.(object, objectContext);
      return reconciler.reconcile(object, objectContext);
    },
  };
}

// The context's parts are made on first read: delegate to them rather than read them all now.
function withRequest(context: ReconcileContext, request: Request): ObjectReconcileContext {
  return {
    request,
    get signal() {
      return context.signal;
    },
    get log() {
      return context.log;
    },
    get reconcileId() {
      return context.reconcileId;
    },
  };
}
