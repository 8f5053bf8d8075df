import { isTerminal } from '../api/errors.js';
import type { WorkQueue } from '../workqueue/index.js';
import type { Result } from './reconciler.js';

/** How a reconcile ended, as the `result` label of `controller_runtime_reconcile_total`. */
export type Outcome =
  | { kind: 'success' }
  | { kind: 'requeue' }
  | { kind: 'requeue_after'; delayMs: number }
  | { kind: 'error'; error: unknown }
  | { kind: 'terminal'; error: unknown };

/** Classifies what a reconcile returned or threw. */
export function classify(
  // biome-ignore lint/suspicious/noConfusingVoidType: what Reconciler.reconcile resolves to, as declared there
  result: Result | undefined | void,
  error: unknown,
  threw: boolean,
): Outcome {
  if (threw) return isTerminal(error) ? { kind: 'terminal', error } : { kind: 'error', error };
  if (result?.requeueAfter !== undefined && result.requeueAfter > 0) {
    return { kind: 'requeue_after', delayMs: result.requeueAfter };
  }
  if (result?.requeue) return { kind: 'requeue' };
  return { kind: 'success' };
}

/**
 * The one place where a reconcile's outcome becomes a queue operation:
 * error → rate-limited requeue; terminal error → forget, no retry; requeueAfter → forget the
 * backoff and add after the delay; requeue → rate-limited requeue; success → forget.
 */
export function applyOutcome(queue: WorkQueue<string>, key: string, outcome: Outcome): void {
  switch (outcome.kind) {
    case 'success':
    case 'terminal':
      queue.forget(key);
      return;
    case 'requeue_after':
      queue.forget(key);
      queue.addAfter(key, outcome.delayMs, 'requeueAfter');
      return;
    case 'requeue':
      queue.addRateLimited(key, 'requeue');
      return;
    case 'error':
      queue.addRateLimited(key, 'error');
      return;
  }
}

/** The `result` label of the outcome. */
export function resultLabel(outcome: Outcome): 'success' | 'error' | 'requeue' | 'requeue_after' {
  return outcome.kind === 'terminal' ? 'error' : outcome.kind;
}
