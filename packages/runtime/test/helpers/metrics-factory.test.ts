import fc from 'fast-check';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { MetricsFactory } from '../../src/helpers/index.js';

describe('MetricsFactory', () => {
  it('makes counters and gauges that read back and scrape as Prometheus text', async () => {
    const registry = new Registry();
    const metrics = new MetricsFactory(registry);
    const evictions = metrics.counter({
      name: 't_evictions_total',
      help: 'Evictions.',
      labelNames: ['result'],
    });
    const needed = metrics.gauge({ name: 't_needed', help: 'Needed.' });
    evictions.inc({ result: 'evicted' });
    evictions.inc({ result: 'evicted' }, 2);
    evictions.inc({ result: 'blocked' });
    needed.set(1);
    expect(evictions.value({ result: 'evicted' })).toBe(3);
    expect(evictions.value({ result: 'error' })).toBe(0);
    expect(evictions.total()).toBe(4);
    expect(needed.value()).toBe(1);
    const text = await registry.metrics();
    expect(text).toContain('# TYPE t_evictions_total counter');
    expect(text).toContain('t_evictions_total{result="evicted"} 3');
    expect(text).toContain('t_needed 1');
  });

  it('keys a series by its labels whatever their order, and reset drops every series', () => {
    const gauge = new MetricsFactory(new Registry()).gauge({
      name: 't_nodes',
      help: 'Nodes.',
      labelNames: ['group', 'state'],
    });
    gauge.set(2, { group: 'a', state: 'idle' });
    gauge.set(5, { state: 'idle', group: 'a' });
    expect(gauge.total()).toBe(5);
    gauge.reset();
    expect(gauge.total()).toBe(0);
  });

  it('hands out the same series on a registry twice instead of failing on the name', async () => {
    const registry = new Registry();
    const first = new MetricsFactory(registry).counter({ name: 't_grants_total', help: 'Grants.' });
    const second = new MetricsFactory(registry).counter({ name: 't_grants_total', help: 'Grants.' });
    expect(second).toBe(first);
    const h1 = new MetricsFactory(registry).histogram({ name: 't_seconds', help: 'S.', buckets: [1, 10] });
    const h2 = new MetricsFactory(registry).histogram({ name: 't_seconds', help: 'S.', buckets: [1, 10] });
    h1.observe({}, 5);
    h2.observe({}, 50);
    expect(await registry.metrics()).toContain('t_seconds_count 2');
    expect(() => new MetricsFactory(registry).gauge({ name: 't_seconds', help: 'S.' })).toThrow(
      'metric t_seconds is already registered as another kind',
    );
  });

  it('counts through a bound series exactly as through its labels, across resets', () => {
    const arbLabels = fc.record({ endpoint: fc.constantFrom('a', 'b'), result: fc.constantFrom('ok', 'no') });
    const arbOp = fc.oneof(
      fc.record({ op: fc.constant('inc' as const), labels: arbLabels, by: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ op: fc.constant('bound' as const), labels: arbLabels, by: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ op: fc.constant('reset' as const) }),
    );
    fc.assert(
      fc.property(fc.array(arbOp, { maxLength: 30 }), (ops) => {
        const registry = new Registry();
        const metrics = new MetricsFactory(registry);
        const tally = metrics.counter({
          name: 't_requests_total',
          help: 'R.',
          labelNames: ['endpoint', 'result'],
        });
        const bound = new Map<string, ReturnType<typeof tally.bind>>();
        const model = new Map<string, number>();
        for (const o of ops) {
          if (o.op === 'reset') {
            tally.reset();
            model.clear();
            continue;
          }
          const key = `${o.labels.endpoint}/${o.labels.result}`;
          model.set(key, (model.get(key) ?? 0) + o.by);
          if (o.op === 'inc') tally.inc(o.labels, o.by);
          else {
            // Bound with the labels in the other order: the series is the same.
            const series =
              bound.get(key) ?? tally.bind({ result: o.labels.result, endpoint: o.labels.endpoint });
            bound.set(key, series);
            series.inc(o.by);
          }
        }
        for (const endpoint of ['a', 'b'])
          for (const result of ['ok', 'no'])
            expect(tally.value({ endpoint, result })).toBe(model.get(`${endpoint}/${result}`) ?? 0);
        expect(tally.get().values).toHaveLength(model.size);
      }),
    );
  });
});
