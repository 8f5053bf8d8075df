import type { KubeObject, ResourceType } from '../api/types.js';
import type { Client } from '../client/client.js';
import type {
  ObjectReconcileContext,
  ObjectReconcileOutcome,
  ObjectReconciler,
} from '../controller/object-reconciler.js';
import { addFinalizer, hasFinalizer, removeFinalizer } from './finalizers.js';

/** The two halves of an object's life under a finalizer (kube-rs's `Event::Apply` / `Event::Cleanup`). */
export interface FinalizerHandlers<T extends KubeObject> {
  /** Makes the world match the object; runs only once the finalizer is on it. */
  apply(object: T, context: ObjectReconcileContext): ObjectReconcileOutcome;
  /**
   * Undoes what `apply` made outside the object's owner references (a cloud resource, an entry
   * elsewhere). Resolve once it is all gone: the finalizer is then removed. Throw, or return a
   * requeue, while it is not: the finalizer stays and cleanup runs again. It may run again after
   * it succeeded (a restart before the removal landed), so it must be idempotent.
   */
  cleanup(object: T, context: ObjectReconcileContext): ObjectReconcileOutcome;
  /**
   * Which objects of the kind are kept under the finalizer (default: all). One that stops being
   * selected (its label removed) is cleaned up and released as if deleted, rather than keep a
   * finalizer nothing would remove; one never selected is never touched. Prefer this to a label
   * selector on the informer: an object that leaves the selector leaves the cache, finalizer and all.
   */
  selects?: (object: T) => boolean;
}

/**
 * An {@link ObjectReconciler} that keeps `finalizer` on the objects of `type`: it adds the
 * finalizer before `apply` runs (so nothing `apply` makes can be left behind by a deletion), calls
 * `cleanup` once the object is being deleted, and removes the finalizer only after `cleanup`
 * succeeded. Every step reads before it writes and each write is conditional (a JSON patch that
 * tests the list it changes, retried on a fresh read when another writer moved it), so a restart
 * or a conflicting writer at any point leaves either the finalizer on and cleanup still to run,
 * or cleanup done and the finalizer gone. An object being deleted without the finalizer (deleted
 * before it was ever added) is left alone.
 *
 * @example
 * manager.controllerBuilder().for(Bucket).buildObjects(
 *   withFinalizer(manager.client, Bucket, 'buckets.example.dev/cleanup', {
 *     apply: (bucket) => store.ensure(bucket.metadata.name),
 *     cleanup: (bucket) => store.remove(bucket.metadata.name),
 *   }),
 * );
 */
export function withFinalizer<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  finalizer: string,
  handlers: FinalizerHandlers<T>,
): ObjectReconciler<T> {
  const cleanup = async (object: T, context: ObjectReconcileContext): ObjectReconcileOutcome => {
    if (!hasFinalizer(object, finalizer)) return undefined;
    const result = await handlers.cleanup(object, context);
    if (result && (result.requeue || result.requeueAfter !== undefined)) return result;
    await removeFinalizer(client, type, object, finalizer);
    return result;
  };
  return {
    finalizer,
    cleanup,
    async reconcile(object, context) {
      if (handlers.selects && !handlers.selects(object)) return cleanup(object, context);
      const current = await addFinalizer(client, type, object, finalizer); // as is when already there
      // Deleted before the add landed (the server adds no finalizer to a deleting object): the add
      // read the deletion, so clean up rather than apply.
      if (current.metadata.deletionTimestamp) return cleanup(current, context);
      return handlers.apply(current, context);
    },
  };
}
