/**
 * One way for an operator to make its metrics: counters and gauges it can also read back (tests,
 * status), histograms from prom-client, all on the manager's registry. The runtime owns the
 * prom-client dependency; operators never import it.
 *
 * Making a metric is idempotent per registry: a second factory on the same registry (an operator
 * restarted in the same process, as tests and the demo do) gets the series already there instead
 * of failing on a duplicate name.
 */
import { type MetricLabels, Tally } from './bound-series.js';
import { Histogram, type Registry } from './prom-classes.js';

export { type BoundSeries, type MetricLabels, Tally } from './bound-series.js';

/** Name, help and label names of a metric. */
export interface MetricSpec<L extends string = string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
}

/** A histogram's observations, as the operator records them. */
export interface Distribution<L extends string = string> {
  observe(labels: MetricLabels<L>, value: number): void;
}

/** Makes an operator's metrics on one registry (the manager's `metrics.registry`). */
export class MetricsFactory {
  constructor(private readonly registry: Registry) {}

  /** A counter (only goes up). */
  counter<L extends string = never>(spec: MetricSpec<L>): Tally<L> {
    return this.tally(spec, 'counter');
  }

  /** A gauge (set to the current value). */
  gauge<L extends string = never>(spec: MetricSpec<L>): Tally<L> {
    return this.tally(spec, 'gauge');
  }

  /** A histogram with the given bucket bounds (upper bounds, ascending). */
  histogram<L extends string = never>(spec: MetricSpec<L> & { buckets: readonly number[] }): Distribution<L> {
    const existing = this.registry.getSingleMetric(spec.name);
    if (existing) return existing as unknown as Distribution<L>;
    const histogram = new Histogram({
      name: spec.name,
      help: spec.help,
      labelNames: [...(spec.labelNames ?? [])],
      buckets: [...spec.buckets],
      registers: [this.registry],
    });
    return histogram as unknown as Distribution<L>;
  }

  private tally<L extends string>(spec: MetricSpec<L>, type: 'counter' | 'gauge'): Tally<L> {
    const existing = this.registry.getSingleMetric(spec.name);
    if (existing instanceof Tally) return existing as Tally<L>;
    if (existing) throw new Error(`metric ${spec.name} is already registered as another kind`);
    return new Tally<L>(spec.name, spec.help, type, spec.labelNames ?? [], this.registry);
  }
}
