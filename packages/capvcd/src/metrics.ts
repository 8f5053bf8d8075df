/**
 * The provider's Prometheus metrics, on the manager's registry: VCD calls by method, path
 * template and result, and how long VCD's tasks took (seen from the reconcile that found them done).
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { CallInfo } from './vcd/site.js';

function single<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

/** Metrics of the VCD side of the provider. */
export class CapvcdMetrics {
  readonly calls: Counter<'method' | 'path' | 'code'>;
  readonly callDuration: Histogram<'method'>;
  readonly taskDuration: Histogram<'operation' | 'result'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.calls = single(
      registry,
      'capvcd_vcd_requests_total',
      () =>
        new Counter({
          name: 'capvcd_vcd_requests_total',
          help: 'VCD API calls by method, path template and HTTP code (0: no answer)',
          labelNames: ['method', 'path', 'code'],
          registers,
        }),
    );
    this.callDuration = single(
      registry,
      'capvcd_vcd_request_duration_seconds',
      () =>
        new Histogram({
          name: 'capvcd_vcd_request_duration_seconds',
          help: 'VCD API call latency',
          labelNames: ['method'],
          buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
          registers,
        }),
    );
    this.taskDuration = single(
      registry,
      'capvcd_vcd_task_duration_seconds',
      () =>
        new Histogram({
          name: 'capvcd_vcd_task_duration_seconds',
          help: 'Seconds from starting a VCD task to a reconcile finding it ended',
          labelNames: ['operation', 'result'],
          buckets: [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800],
          registers,
        }),
    );
  }

  /** Counts one VCD call (use as the connections' call observer). */
  readonly onCall = (info: CallInfo): void => {
    this.calls.inc({ method: info.method, path: info.path, code: String(info.status) });
    this.callDuration.observe({ method: info.method }, info.durationMs / 1000);
  };
}
