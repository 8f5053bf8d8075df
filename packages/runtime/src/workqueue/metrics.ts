/**
 * What a queue reports as it works. The manager binds these callbacks to prom-client series
 * (`workqueue_depth`, `workqueue_adds_total`, ...) labelled with the queue's name; the two gauges
 * that change continuously (unfinished work, longest running processor) are polled instead, from
 * {@link WorkQueue.unfinishedWork}.
 */
export interface WorkQueueMetrics {
  /** The number of keys waiting to be handed out changed to `depth`. */
  onDepth(depth: number): void;
  /** A key became pending. Adds that collapse into an already pending key are not counted. */
  onAdd(): void;
  /** A key was handed out `seconds` after it became pending. */
  onQueueLatency(seconds: number): void;
  /** A key was marked done `seconds` after it was handed out. */
  onWorkDuration(seconds: number): void;
  /** `addRateLimited` was called. */
  onRetry(): void;
}

/** Metrics that go nowhere: the default, so a queue needs no metrics registry to work. */
export const noopWorkQueueMetrics: WorkQueueMetrics = {
  onDepth() {},
  onAdd() {},
  onQueueLatency() {},
  onWorkDuration() {},
  onRetry() {},
};
