/**
 * The provider's Prometheus metrics, made by the runtime's metrics factory on the manager's
 * registry: VCD calls by method, path template and result, and how long VCD's tasks took (seen
 * from the reconcile that found them done).
 */
import { type Distribution, MetricsFactory, type Tally } from '@capstan/runtime';
import type { MetricsRegistry } from '@capstan/runtime/manager';
import type { CallInfo } from './vcd/site.js';

/** Metrics of the VCD side of the provider. */
export class CapvcdMetrics {
  /** VCD calls by method, path template and HTTP code (`0`: no answer). */
  readonly calls: Tally<'method' | 'path' | 'code'>;
  readonly callDuration: Distribution<'method'>;
  /** Seconds from starting a task to the reconcile that found it ended, by operation and result. */
  readonly taskDuration: Distribution<'operation' | 'result'>;

  /** Makes the metrics on `registry` (the manager's `metrics.registry`); again on one registry, the same series. */
  constructor(registry: MetricsRegistry['registry']) {
    const metrics = new MetricsFactory(registry);
    this.calls = metrics.counter({
      name: 'capvcd_vcd_requests_total',
      help: 'VCD API calls by method, path template and HTTP code (0: no answer)',
      labelNames: ['method', 'path', 'code'],
    });
    this.callDuration = metrics.histogram({
      name: 'capvcd_vcd_request_duration_seconds',
      help: 'VCD API call latency',
      labelNames: ['method'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    });
    this.taskDuration = metrics.histogram({
      name: 'capvcd_vcd_task_duration_seconds',
      help: 'Seconds from starting a VCD task to a reconcile finding it ended',
      labelNames: ['operation', 'result'],
      buckets: [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800],
    });
  }

  /** Counts one VCD call (use as the connections' call observer). */
  readonly onCall = (info: CallInfo): void => {
    this.calls.inc({ method: info.method, path: info.path, code: String(info.status) });
    this.callDuration.observe({ method: info.method }, info.durationMs / 1000);
  };
}
