/**
 * The webhook server's metrics, named as controller-runtime names them so dashboards carry over:
 * `controller_runtime_webhook_requests_total{webhook,code}`,
 * `controller_runtime_webhook_latency_seconds{webhook}`,
 * `controller_runtime_webhook_requests_in_flight{webhook}` and
 * `controller_runtime_webhook_panics_total` (a handler threw). `webhook` is the path.
 */
import { Counter, Gauge, Histogram, type Registry } from '../metrics/prom-classes.js';

/** What the server reports per request. */
export interface WebhookMetrics {
  started(webhook: string): void;
  finished(webhook: string, code: number, seconds: number): void;
  panicked(): void;
}

/** Registers the webhook series on `registry` (a manager's `metrics.registry`). */
export function webhookMetrics(registry: Registry): WebhookMetrics {
  const registers = [registry];
  const total = new Counter({
    name: 'controller_runtime_webhook_requests_total',
    help: 'Total number of admission requests by HTTP status code.',
    labelNames: ['webhook', 'code'],
    registers,
  });
  const latency = new Histogram({
    name: 'controller_runtime_webhook_latency_seconds',
    help: 'Histogram of the latency of processing admission requests',
    labelNames: ['webhook'],
    registers,
  });
  const inFlight = new Gauge({
    name: 'controller_runtime_webhook_requests_in_flight',
    help: 'Current number of admission requests being served.',
    labelNames: ['webhook'],
    registers,
  });
  const panics = new Counter({
    name: 'controller_runtime_webhook_panics_total',
    help: 'Total number of webhook panics',
    registers,
  });
  panics.inc(0);
  return {
    started: (webhook) => inFlight.inc({ webhook }),
    finished: (webhook, code, seconds) => {
      inFlight.dec({ webhook });
      total.inc({ webhook, code: String(code) });
      latency.observe({ webhook }, seconds);
    },
    panicked: () => panics.inc(),
  };
}
