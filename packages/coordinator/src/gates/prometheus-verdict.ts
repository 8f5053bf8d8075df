/**
 * The Prometheus gate's decision, pure: from what Prometheus answered (the query's series, the
 * active alerts), whether the gate is open, and if not, why. kured's alert flags, as fields:
 * `filterRegexp` names alerts to ignore (`--alert-filter-regexp`), `filterMatchOnly` turns it into
 * the alerts that count (`--alert-filter-match-only`), `firingOnly` ignores pending alerts
 * (`--alert-firing-only`); `matchLabels` narrows to alerts carrying those labels.
 */
import type { HealthGateState } from '../decide/health-gates.js';

/** The alert filter of a Prometheus gate. */
export interface AlertFilter {
  filterRegexp?: string;
  filterMatchOnly?: boolean;
  firingOnly?: boolean;
  matchLabels?: Readonly<Record<string, string>>;
}

/** One active alert as `/api/v1/alerts` lists it. */
export interface ActiveAlert {
  labels: Readonly<Record<string, string>>;
  state: string;
}

/** What Prometheus answered this round; `undefined` for a part the gate does not ask. */
export interface PrometheusAnswer {
  /** The label sets of the query's series. */
  series?: ReadonlyArray<Readonly<Record<string, string>>>;
  alerts?: readonly ActiveAlert[];
}

/** The alerts that close the gate under `filter` (a bad regexp throws: the caller reports it). */
export function blockingAlerts(alerts: readonly ActiveAlert[], filter: AlertFilter): ActiveAlert[] {
  const re = filter.filterRegexp ? new RegExp(filter.filterRegexp) : undefined;
  return alerts.filter((a) => {
    if (filter.firingOnly && a.state !== 'firing') return false;
    const name = a.labels.alertname ?? '';
    if (re) {
      const matches = re.test(name);
      if (filter.filterMatchOnly ? !matches : matches) return false;
    }
    return Object.entries(filter.matchLabels ?? {}).every(([k, v]) => a.labels[k] === v);
  });
}

/** The gate's state from Prometheus's answer. */
export function prometheusVerdict(
  answer: PrometheusAnswer,
  filter: AlertFilter | undefined,
): HealthGateState {
  const reasons: string[] = [];
  const series = answer.series ?? [];
  if (series.length > 0) reasons.push(`the query returns ${series.length} series (${describe(series[0])})`);
  if (answer.alerts && filter) {
    let blocking: ActiveAlert[];
    try {
      blocking = blockingAlerts(answer.alerts, filter);
    } catch (err) {
      return { gate: 'prometheus', state: 'Error', message: `alerts.filterRegexp: ${String(err)}` };
    }
    if (blocking.length > 0) {
      const names = [...new Set(blocking.map((a) => a.labels.alertname ?? '?'))];
      reasons.push(`alerts active: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', ...' : ''}`);
    }
  }
  return reasons.length > 0
    ? { gate: 'prometheus', state: 'Closed', message: reasons.join('; ') }
    : { gate: 'prometheus', state: 'Open', message: 'no series and no matching alert' };
}

function describe(labels: Readonly<Record<string, string>> | undefined): string {
  const entries = Object.entries(labels ?? {});
  return `{${entries
    .slice(0, 4)
    .map(([k, v]) => `${k}="${v}"`)
    .join(', ')}${entries.length > 4 ? ', ...' : ''}}`;
}
