/**
 * The manager's Prometheus metrics, under the names controller-runtime uses so that existing
 * dashboards and alerts work unchanged. Each {@link MetricsRegistry} owns a prom-client `Registry`
 * (never the process-wide default one), so two managers in one process, or two tests, do not clash.
 */

import { ValueFamily, type ValueSeries } from '../metrics/bound-series.js';
import { collectDefaultMetrics } from '../metrics/default-metrics.js';
import { Gauge, Registry } from '../metrics/prom-classes.js';
import type { WorkQueueMetrics } from '../workqueue/metrics.js';
import {
  type ControllerFamilies,
  controllerFamilies,
  type QueueFamilies,
  queueFamilies,
} from './metric-families.js';

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

/** How long after construction prom-client's process and Node.js metrics are registered. */
const DEFAULT_METRICS_DELAY_MS = 1_000;

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

  // The series written per reconcile, per queue operation or per request are bound once (see
  // bound-series.ts): no label hashing on the hot path.
  private readonly controller: ControllerFamilies;
  private readonly queue: QueueFamilies;

  private readonly leaderStatus: Gauge<'name'>;
  private readonly restRequests: ValueFamily;
  /** `rest_client_requests_total` series by `code method host`, bound on first use. */
  private readonly restSeries = new Map<string, ValueSeries>();

  /** Whether prom-client's default metrics are wanted, and their registration once begun. */
  private readonly defaultsWanted: boolean;
  private defaults: Promise<Error | undefined> | undefined;
  private defaultsTimer: NodeJS.Timeout | undefined;

  /** Queues polled for the unfinished-work gauges, with their controller label. */
  private readonly queues = new Map<UnfinishedWorkSource, string>();

  constructor(options: MetricsRegistryOptions = {}) {
    this.reg = options.registry ?? new Registry();
    const registers = [this.reg];
    // Registered a second after construction, or at the first scrape if sooner: loading them (some
    // 50 ms of prom-client modules) would otherwise compete with the caches' first lists.
    this.defaultsWanted = options.defaultMetrics ?? true;
    if (this.defaultsWanted) {
      this.defaultsTimer = setTimeout(() => void this.registerDefaults(), DEFAULT_METRICS_DELAY_MS);
      this.defaultsTimer.unref();
    }

    this.controller = controllerFamilies(this.reg);
    this.queue = queueFamilies(this.reg, this.queues);

    this.leaderStatus = new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
      labelNames: ['name'],
      registers,
    });
    this.restRequests = new ValueFamily(
      'rest_client_requests_total',
      'Number of HTTP requests, partitioned by status code, method, and host.',
      'counter',
      ['code', 'method', 'host'],
      this.reg,
    );
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
    // Binding makes each series at zero (every `result` of the reconcile counter included); a
    // second call gets the same series, so it resets nothing.
    const results = Object.fromEntries(
      RECONCILE_RESULTS.map((result) => [
        result,
        this.controller.reconcileTotal.bind({ controller, result }),
      ]),
    ) as Record<ReconcileResult, ValueSeries>;
    const time = this.controller.reconcileTime.bind(labels);
    const errors = this.controller.reconcileErrors.bind(labels);
    const terminal = this.controller.terminalErrors.bind(labels);
    const panics = this.controller.panics.bind(labels);
    const active = this.controller.activeWorkerCount.bind(labels);
    return {
      reconciled: (result, seconds) => {
        results[result].value++;
        time.observe(seconds);
      },
      error: () => errors.value++,
      terminalError: () => terminal.value++,
      panic: () => panics.value++,
      activeWorkers: (delta) => {
        active.value += delta;
      },
      maxConcurrent: (n) => {
        this.controller.maxConcurrentReconciles.bind(labels).value = n;
      },
    };
  }

  /**
   * The callbacks a `WorkQueue` reports through, bound to the `workqueue_*` series labelled
   * `{name, controller}`. Pass the result as the queue's `metrics` option.
   */
  workQueueMetrics(name: string, controller: string = name): WorkQueueMetrics {
    const labels = { name, controller };
    const depth = this.queue.depth.bind(labels);
    const adds = this.queue.adds.bind(labels);
    const retries = this.queue.retries.bind(labels);
    const queueDuration = this.queue.queueDuration.bind(labels);
    const workDuration = this.queue.workDuration.bind(labels);
    return {
      onDepth: (n) => {
        depth.value = n;
      },
      onAdd: () => adds.value++,
      onQueueLatency: (seconds) => queueDuration.observe(seconds),
      onWorkDuration: (seconds) => workDuration.observe(seconds),
      onRetry: () => retries.value++,
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
    const code = String(request.code);
    const method = request.method.toUpperCase();
    const key = `${code} ${method} ${request.host}`;
    let series = this.restSeries.get(key);
    if (!series) {
      series = this.restRequests.bind({ code, method, host: request.host });
      this.restSeries.set(key, series);
    }
    series.value++;
  }

  /** Sets `leader_election_master_status{name}` to 1 while we hold lease `name`, else 0. */
  setLeader(name: string, isLeader: boolean): void {
    this.leaderStatus.set({ name }, isLeader ? 1 : 0);
  }

  /**
   * Resolves once prom-client's process and Node.js metrics are on {@link MetricsRegistry.registry}
   * (they load a second after construction, or now if that has not come yet); rejects if they
   * could not load.
   */
  async defaultMetricsRegistered(): Promise<void> {
    if (!this.defaultsWanted) return;
    const error = await this.registerDefaults();
    if (error) throw error;
  }

  private registerDefaults(): Promise<Error | undefined> {
    if (this.defaults === undefined) {
      clearTimeout(this.defaultsTimer);
      try {
        collectDefaultMetrics(this.reg);
        this.defaults = Promise.resolve(undefined);
      } catch (err) {
        this.defaults = Promise.resolve(err instanceof Error ? err : new Error(String(err)));
      }
    }
    return this.defaults;
  }

  /** Every metric in the Prometheus text exposition format, as served on `/metrics`. */
  async text(): Promise<string> {
    await this.defaultMetricsRegistered();
    return this.reg.metrics();
  }
}
