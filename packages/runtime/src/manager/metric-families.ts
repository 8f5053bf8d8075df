/**
 * The controller and workqueue metric families of a `MetricsRegistry`, under
 * controller-runtime's names and help texts. Each series written per reconcile or per queue
 * operation is bound once from these (see `metrics/bound-series.ts`): no label hashing on the hot
 * path.
 */
import { HistogramFamily, ValueFamily } from '../metrics/bound-series.js';
import { Gauge, type Registry } from '../metrics/prom-classes.js';
import type { UnfinishedWorkSource } from './metrics-registry.js';

// Buckets as controller-runtime sets them: fine below one second, coarse up to a minute.
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
// Workqueue latencies span nanoseconds to many minutes: powers of ten from 10 ns to 1000 s.
const QUEUE_BUCKETS = Array.from({ length: 12 }, (_, i) => Number((1e-8 * 10 ** i).toPrecision(1)));

/** The `controller_runtime_*` families, by the `controller` label (and `result` for the total). */
export interface ControllerFamilies {
  reconcileTotal: ValueFamily;
  reconcileErrors: ValueFamily;
  terminalErrors: ValueFamily;
  panics: ValueFamily;
  reconcileTime: HistogramFamily;
  maxConcurrentReconciles: ValueFamily;
  activeWorkerCount: ValueFamily;
}

/** Registers the `controller_runtime_*` families on `reg`. */
export function controllerFamilies(reg: Registry): ControllerFamilies {
  const controllerLabel = ['controller'];
  return {
    reconcileTotal: new ValueFamily(
      'controller_runtime_reconcile_total',
      'Total number of reconciliations per controller',
      'counter',
      ['controller', 'result'],
      reg,
    ),
    reconcileErrors: new ValueFamily(
      'controller_runtime_reconcile_errors_total',
      'Total number of reconciliation errors per controller',
      'counter',
      controllerLabel,
      reg,
    ),
    terminalErrors: new ValueFamily(
      'controller_runtime_terminal_reconcile_errors_total',
      'Total number of terminal reconciliation errors per controller',
      'counter',
      controllerLabel,
      reg,
    ),
    panics: new ValueFamily(
      'controller_runtime_reconcile_panics_total',
      'Total number of reconciliations that threw an exception per controller',
      'counter',
      controllerLabel,
      reg,
    ),
    reconcileTime: new HistogramFamily(
      'controller_runtime_reconcile_time_seconds',
      'Length of time per reconciliation per controller',
      controllerLabel,
      RECONCILE_BUCKETS,
      reg,
    ),
    maxConcurrentReconciles: new ValueFamily(
      'controller_runtime_max_concurrent_reconciles',
      'Maximum number of concurrent reconciles per controller',
      'gauge',
      controllerLabel,
      reg,
    ),
    activeWorkerCount: new ValueFamily(
      'controller_runtime_active_workers',
      'Number of currently used workers per controller',
      'gauge',
      controllerLabel,
      reg,
    ),
  };
}

/** The `workqueue_*` families written per queue operation, by `name` and `controller`. */
export interface QueueFamilies {
  depth: ValueFamily;
  adds: ValueFamily;
  queueDuration: HistogramFamily;
  workDuration: HistogramFamily;
  retries: ValueFamily;
}

/**
 * Registers the `workqueue_*` families on `reg`, and the two unfinished-work gauges, which poll
 * `queues` (with their controller label) at scrape time.
 */
export function queueFamilies(
  reg: Registry,
  queues: ReadonlyMap<UnfinishedWorkSource, string>,
): QueueFamilies {
  const queueLabels = ['name', 'controller'] as const;
  const registers = [reg];
  const families: QueueFamilies = {
    depth: new ValueFamily('workqueue_depth', 'Current depth of workqueue', 'gauge', queueLabels, reg),
    adds: new ValueFamily(
      'workqueue_adds_total',
      'Total number of adds handled by workqueue',
      'counter',
      queueLabels,
      reg,
    ),
    queueDuration: new HistogramFamily(
      'workqueue_queue_duration_seconds',
      'How long in seconds an item stays in workqueue before being requested',
      queueLabels,
      QUEUE_BUCKETS,
      reg,
    ),
    workDuration: new HistogramFamily(
      'workqueue_work_duration_seconds',
      'How long in seconds processing an item from workqueue takes',
      queueLabels,
      QUEUE_BUCKETS,
      reg,
    ),
    retries: new ValueFamily(
      'workqueue_retries_total',
      'Total number of retries handled by workqueue',
      'counter',
      queueLabels,
      reg,
    ),
  }; // Registered after the families, as controller-runtime lists them.
  new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help:
      'How many seconds of work has been done that is in progress and has not been observed by ' +
      'work_duration. Large values indicate stuck threads.',
    labelNames: queueLabels,
    registers,
    collect() {
      this.reset();
      for (const [queue, controller] of queues) {
        this.set({ name: queue.name, controller }, queue.unfinishedWork().totalSeconds);
      }
    },
  });
  new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running.',
    labelNames: queueLabels,
    registers,
    collect() {
      this.reset();
      for (const [queue, controller] of queues) {
        this.set({ name: queue.name, controller }, queue.unfinishedWork().longestSeconds);
      }
    },
  });
  return families;
}
