/**
 * Reads the Prometheus gate of a group for a round: the instant query (must return no series) and
 * the active alerts (filtered as the group says), from its URL with its token and CA. Anything
 * that goes wrong (unreachable, timeout, an error answer, a missing Secret) is an `Error` state,
 * which blocks: the gate fails closed.
 */
import type { Client } from '@capstan/runtime';
import { readDuration } from '@capstan/runtime';
import type { HealthGateState } from '../decide/health-gates.js';
import { type Endpoint, endpointAuth, prometheusData, requestJson } from './monitoring-http.js';
import {
  type ActiveAlert,
  type AlertFilter,
  type PrometheusAnswer,
  prometheusVerdict,
} from './prometheus-verdict.js';

/** The `gates.prometheus` field of a RebootGroup. */
export interface PrometheusGateSpec extends Endpoint {
  query?: string;
  alerts?: AlertFilter;
  timeout?: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/** The gate's state now. */
export async function readPrometheusGate(client: Client, spec: PrometheusGateSpec): Promise<HealthGateState> {
  try {
    const timeoutMs = (spec.timeout ? readDuration(spec.timeout) : undefined) ?? DEFAULT_TIMEOUT_MS;
    const auth = await endpointAuth(client, spec);
    const answer: PrometheusAnswer = {};
    if (spec.query) {
      const path = `api/v1/query?query=${encodeURIComponent(spec.query)}`;
      answer.series = seriesOf(prometheusData(await requestJson(spec.url, path, { auth, timeoutMs })));
    }
    if (spec.alerts) {
      const data = prometheusData(await requestJson(spec.url, 'api/v1/alerts', { auth, timeoutMs }));
      answer.alerts = ((data as { alerts?: ActiveAlert[] } | undefined)?.alerts ?? []).map((a) => ({
        labels: a.labels ?? {},
        state: a.state,
      }));
    }
    if (!spec.query && !spec.alerts)
      return { gate: 'prometheus', state: 'Error', message: 'names neither a query nor alerts' };
    return prometheusVerdict(answer, spec.alerts);
  } catch (err) {
    return { gate: 'prometheus', state: 'Error', message: err instanceof Error ? err.message : String(err) };
  }
}

/** The label sets of an instant query's answer (a vector; a scalar or string counts as one series). */
function seriesOf(data: unknown): Array<Record<string, string>> {
  const d = data as { resultType?: string; result?: unknown };
  if (d?.resultType === 'vector' || d?.resultType === 'matrix')
    return ((d.result as Array<{ metric?: Record<string, string> }>) ?? []).map((r) => r.metric ?? {});
  if (d?.resultType === 'scalar' || d?.resultType === 'string') return [{}];
  throw new Error(`the query's answer has no result type: ${JSON.stringify(data).slice(0, 200)}`);
}
