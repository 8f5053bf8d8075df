import type { Logger } from '../log/logger.js';
import type { Request } from './request.js';

/**
 * What a reconcile asks of the queue afterwards. Return nothing (or `{}`) on success.
 * - `requeueAfter`: reconcile again after this many milliseconds, without backoff (e.g. polling).
 * - `requeue`: reconcile again with rate-limited backoff, without counting as an error.
 * Throw to report an error (retried with backoff); throw a `TerminalError` for one that a retry
 * cannot fix (counted and logged, never retried).
 */
export interface Result {
  requeueAfter?: number;
  requeue?: boolean;
}

/**
 * What a reconcile gets besides its request. Each part is made on first read (a reconcile that
 * reads none costs none of them); read them as often as you like, each read gives the same one.
 */
export interface ReconcileContext {
  /**
   * Aborted when the reconcile timeout passes or the controller stops: pass it to long I/O. Read
   * after either happened, it is aborted already, with that reason.
   */
  readonly signal: AbortSignal;
  /** Carries controller, namespace, name and reconcileId. */
  readonly log: Logger;
  /** Unique per reconcile (a random UUID), for correlating logs. */
  readonly reconcileId: string;
}

/**
 * Makes the world match one object's desired state. Called with a key, it reads the current state
 * (from the cache), acts, and returns. It must be idempotent: run on an unchanged world, it writes
 * nothing. A key is never reconciled by two workers at once.
 */
export interface Reconciler {
  // `void` on purpose: `Promise<Result | void>` is how many write a reconciler's type, and without it
  // in the union that annotation no longer type-checks (see reconciler-types.test.ts).
  // biome-ignore lint/suspicious/noConfusingVoidType: an async reconciler may resolve to nothing
  reconcile(request: Request, context: ReconcileContext): Promise<Result | undefined | void>;
}

/** A plain function as a reconciler. */
export type ReconcileFunction = Reconciler['reconcile'];
