/**
 * The Prometheus gate's decision with kured's alert flags: it is open exactly when the query
 * returns no series and no active alert survives the filter, and each flag narrows as kured's
 * does (`firingOnly` drops pending alerts; `filterRegexp` ignores names it matches, or, with
 * `filterMatchOnly`, keeps only those; `matchLabels` keeps alerts carrying the labels).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type ActiveAlert,
  type AlertFilter,
  blockingAlerts,
  prometheusVerdict,
} from '../../src/gates/prometheus-verdict.js';

const arbAlert: fc.Arbitrary<ActiveAlert> = fc.record({
  labels: fc.record({
    alertname: fc.constantFrom('NodeDown', 'DiskFull', 'Watchdog', 'CephWarn'),
    severity: fc.constantFrom('critical', 'warning'),
  }),
  state: fc.constantFrom('firing', 'pending'),
});
const arbFilter: fc.Arbitrary<AlertFilter> = fc.record(
  {
    filterRegexp: fc.constantFrom('^Watchdog$', 'Ceph.*', 'Disk'),
    filterMatchOnly: fc.boolean(),
    firingOnly: fc.boolean(),
    matchLabels: fc.constantFrom<Record<string, string>>({}, { severity: 'critical' }),
  },
  { requiredKeys: [] },
);

describe('prometheusVerdict, property', () => {
  it('is open iff no series and no alert passes the filter, whatever the filter', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ job: fc.constantFrom('a', 'b') }), { maxLength: 3 }),
        fc.array(arbAlert, { maxLength: 6 }),
        arbFilter,
        (series, alerts, filter) => {
          const v = prometheusVerdict({ series, alerts }, filter);
          const blocking = alerts.filter((a) => {
            if (filter.firingOnly && a.state !== 'firing') return false;
            if (filter.filterRegexp !== undefined) {
              const m = new RegExp(filter.filterRegexp).test(a.labels.alertname ?? '');
              if (filter.filterMatchOnly ? !m : m) return false;
            }
            return Object.entries(filter.matchLabels ?? {}).every(([k, val]) => a.labels[k] === val);
          });
          expect(v.state).toBe(series.length === 0 && blocking.length === 0 ? 'Open' : 'Closed');
          expect(blockingAlerts(alerts, filter)).toEqual(blocking);
          // Each flag only ever narrows: the unfiltered set blocks whenever the filtered one does.
          if (blocking.length > 0) expect(blockingAlerts(alerts, {}).length).toBeGreaterThan(0);
        },
      ),
    );
  });

  it('never opens on a bad regular expression: an Error state', () => {
    const v = prometheusVerdict({ alerts: [] }, { filterRegexp: '(' });
    expect(v.state).toBe('Error');
  });

  it('ignores alerts when the gate asks none', () => {
    const v = prometheusVerdict({ series: [] }, undefined);
    expect(v).toEqual({ gate: 'prometheus', state: 'Open', message: 'no series and no matching alert' });
  });
});
