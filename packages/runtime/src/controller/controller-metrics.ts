/**
 * What a controller reports; the manager binds it to the controller-runtime metric names.
 * The default does nothing, so a controller runs without a manager.
 */
export interface ControllerMetrics {
  reconciled(result: 'success' | 'error' | 'requeue' | 'requeue_after', seconds: number): void;
  error(): void;
  terminalError(): void;
  /** A reconcile threw something that is not an Error (a bug, like a Go panic). */
  panic(): void;
  activeWorkers(delta: number): void;
  maxConcurrent(n: number): void;
}

/** A {@link ControllerMetrics} that records nothing. */
export const noopControllerMetrics: ControllerMetrics = {
  reconciled() {},
  error() {},
  terminalError() {},
  panic() {},
  activeWorkers() {},
  maxConcurrent() {},
};
