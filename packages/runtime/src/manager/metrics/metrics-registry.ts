/**
 * The manager's Prometheus metrics, under the names controller-runtime uses so that existing
 * dashboards and alerts work unchanged. Each {@link MetricsRegistry} owns a prom-client `Registry`
 * (never the process-wide default one), so two managers in one process, or two tests, do not clash.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { WorkQueueMetrics } from '../../workqueue/metrics.js';

/** The `result` label of `controller_runtime_reconcile_total`. */
export type ReconcileResult = 'success' | 'error' | 'requeue' | 'requeue_after';

const RECONCILE_RESULTS: readonly ReconcileResult[] = ['success', 'error', 'requeue', 'requeue_after'];

/** What one controller reports; obtained from {@link MetricsRegistry.controllerMetrics}. */
export interface ControllerMetrics {
  /**
   * A reconcile finished with `result` after `seconds`: counts `controller_runtime_reconcile_total`
   * and observes `controller_runtime_reconcile_time_seconds`.
   */
  reconciled(result: ReconcileResult, seconds: number): void;
  /** A reconcile returned an error: `controller_runtime_reconcile_errors_total`. */
  error(): void;
  /** A reconcile returned a terminal (not retried) error: `controller_runtime_terminal_reconcile_errors_total`. */
  terminalError(): void;
  /** A reconciler threw instead of returning: `controller_runtime_reconcile_panics_total`. */
  panic(): void;
  /** Workers busy reconciling went up or down by `delta`: `controller_runtime_active_workers`. */
  activeWorkers(delta: number): void;
  /** The controller runs at most `n` reconciles at once: `controller_runtime_max_concurrent_reconciles`. */
  maxConcurrent(n: number): void;
}

/** A queue whose in-flight work is polled at scrape time (a `WorkQueue` fits). */
export interface UnfinishedWorkSource {
  readonly name: string;
  unfinishedWork(): { totalSeconds: number; longestSeconds: number };
}

/** One finished API request, as reported by the HTTP transport. */
export interface RestRequestInfo {
  /** HTTP verb; counted upper case. */
  method: string;
  /** HTTP status code, or `<error>` when no answer came. */
  code: string | number;
  /** `host:port` of the API server. */
  host: string;
}

/** Options of a {@link MetricsRegistry}. */
export interface MetricsRegistryOptions {
  /** Use this registry instead of a new one (e.g. to share it with other libraries). */
  registry?: Registry;
  /**
   * Also collect prom-client's process and Node.js metrics (`process_*`, `nodejs_*`), which
   * dashboards expect beside controller-runtime's. Default true.
   */
  defaultMetrics?: boolean;
}

// Buckets as controller-runtime sets them: fine below one second, coarse up to a minute.
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
// Workqueue latencies span nanoseconds to many minutes: powers of ten from 10 ns to 1000 s.
const QUEUE_BUCKETS = Array.from({ length: 12 }, (_, i) => Number((1e-8 * 10 ** i).toPrecision(1)));

/**
 * The metrics of a manager: controller, workqueue, leader election and REST client series, plus any
 * an operator registers itself on {@link MetricsRegistry.registry}.
 *
 * @example
 * const metrics = new MetricsRegistry();
 * const queue = new WorkQueue({ name: 'widgets', metrics: metrics.workQueueMetrics('widgets', 'widgets') });
 * metrics.registerQueue(queue);
 * new Counter({ name: 'widgets_resized_total', help: '...', registers: [metrics.registry] });
 */
export class MetricsRegistry {
  private readonly reg: Registry;

  private readonly reconcileTotal: Counter<'controller' | 'result'>;
  private readonly reconcileErrors: Counter<'controller'>;
  private readonly terminalErrors: Counter<'controller'>;
  private readonly panics: Counter<'controller'>;
  private readonly reconcileTime: Histogram<'controller'>;
  private readonly maxConcurrentReconciles: Gauge<'controller'>;
  private readonly activeWorkerCount: Gauge<'controller'>;

  private readonly depth: Gauge<'name' | 'controller'>;
  private readonly adds: Counter<'name' | 'controller'>;
  private readonly queueDuration: Histogram<'name' | 'controller'>;
  private readonly workDuration: Histogram<'name' | 'controller'>;
  private readonly retries: Counter<'name' | 'controller'>;

  private readonly leaderStatus: Gauge<'name'>;
  private readonly restRequests: Counter<'code' | 'method' | 'host'>;

  /** Controllers and queues whose series were set to zero (once, so a second call resets nothing). */
  private readonly initialized = new Set<string>();
  /** Queues polled for the unfinished-work gauges, with their controller label. */
  private readonly queues = new Map<UnfinishedWorkSource, string>();

  constructor(options: MetricsRegistryOptions = {}) {
    this.reg = options.registry ?? new Registry();
    const registers = [this.reg];
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.reg });

    this.reconcileTotal = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.terminalErrors = new Counter({
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.panics = new Counter({
      name: 'controller_runtime_reconcile_panics_total',
      help: 'Total number of reconciliations that threw an exception per controller',
      labelNames: ['controller'],
      registers,
    });
    this.reconcileTime = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: RECONCILE_BUCKETS,
      registers,
    });
    this.maxConcurrentReconciles = new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    });
    this.activeWorkerCount = new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    });

    const queueLabels = ['name', 'controller'] as const;
    this.depth = new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: queueLabels,
      registers,
    });
    this.adds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: queueLabels,
      registers,
    });
    this.queueDuration = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: queueLabels,
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: queueLabels,
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.retries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: queueLabels,
      registers,
    });
    const queues = this.queues;
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

    this.leaderStatus = new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
      labelNames: ['name'],
      registers,
    });
    this.restRequests = new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests, partitioned by status code, method, and host.',
      labelNames: ['code', 'method', 'host'],
      registers,
    });
  }

  /** The underlying prom-client registry: register an operator's own metrics here. */
  get registry(): Registry {
    return this.reg;
  }

  /** The `Content-Type` of {@link MetricsRegistry.text}'s exposition format. */
  get contentType(): string {
    return this.reg.contentType;
  }

  /**
   * The metrics of one controller. Its series start at zero (every `result` of the reconcile
   * counter included), so rates are defined before the first reconcile.
   */
  controllerMetrics(controller: string): ControllerMetrics {
    const labels = { controller };
    if (this.firstTime(JSON.stringify(['controller', controller]))) {
      for (const result of RECONCILE_RESULTS) this.reconcileTotal.inc({ controller, result }, 0);
      this.reconcileErrors.inc(labels, 0);
      this.terminalErrors.inc(labels, 0);
      this.panics.inc(labels, 0);
      this.activeWorkerCount.set(labels, 0);
    }
    return {
      reconciled: (result, seconds) => {
        this.reconcileTotal.inc({ controller, result });
        this.reconcileTime.observe(labels, seconds);
      },
      error: () => this.reconcileErrors.inc(labels),
      terminalError: () => this.terminalErrors.inc(labels),
      panic: () => this.panics.inc(labels),
      activeWorkers: (delta) => this.activeWorkerCount.inc(labels, delta),
      maxConcurrent: (n) => this.maxConcurrentReconciles.set(labels, n),
    };
  }

  /**
   * The callbacks a `WorkQueue` reports through, bound to the `workqueue_*` series labelled
   * `{name, controller}`. Pass the result as the queue's `metrics` option.
   */
  workQueueMetrics(name: string, controller: string = name): WorkQueueMetrics {
    const labels = { name, controller };
    if (this.firstTime(JSON.stringify(['queue', name, controller]))) {
      this.depth.set(labels, 0);
      this.adds.inc(labels, 0);
      this.retries.inc(labels, 0);
    }
    return {
      onDepth: (depth) => this.depth.set(labels, depth),
      onAdd: () => this.adds.inc(labels),
      onQueueLatency: (seconds) => this.queueDuration.observe(labels, seconds),
      onWorkDuration: (seconds) => this.workDuration.observe(labels, seconds),
      onRetry: () => this.retries.inc(labels),
    };
  }

  /**
   * Polls `queue` at every scrape for `workqueue_unfinished_work_seconds` and
   * `workqueue_longest_running_processor_seconds`. Returns a function that stops polling it.
   */
  registerQueue(queue: UnfinishedWorkSource, controller: string = queue.name): () => void {
    this.queues.set(queue, controller);
    return () => {
      this.queues.delete(queue);
    };
  }

  /** Counts one API request in `rest_client_requests_total`; fits `HttpTransport`'s `onRequest`. */
  onRestRequest(request: RestRequestInfo): void {
    this.restRequests.inc({
      code: String(request.code),
      method: request.method.toUpperCase(),
      host: request.host,
    });
  }

  /** Sets `leader_election_master_status{name}` to 1 while we hold lease `name`, else 0. */
  setLeader(name: string, isLeader: boolean): void {
    this.leaderStatus.set({ name }, isLeader ? 1 : 0);
  }

  /** Every metric in the Prometheus text exposition format, as served on `/metrics`. */
  text(): Promise<string> {
    return this.reg.metrics();
  }

  private firstTime(key: string): boolean {
    if (this.initialized.has(key)) return false;
    this.initialized.add(key);
    return true;
  }
}
