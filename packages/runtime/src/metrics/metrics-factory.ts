/**
 * One way for an operator to make its metrics: counters and gauges it can also read back (tests,
 * status), histograms from prom-client, all on the manager's registry. The runtime owns the
 * prom-client dependency; operators never import it.
 *
 * Making a metric is idempotent per registry: a second factory on the same registry (an operator
 * restarted in the same process, as tests and the demo do) gets the series already there instead
 * of failing on a duplicate name.
 */
import { Histogram, type Registry } from './prom-classes.js';

/** Label values of one series, by label name. */
export type MetricLabels<L extends string = string> = Readonly<Partial<Record<L, string>>>;

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

const seriesKey = (labels: MetricLabels): string =>
  JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** One series of a {@link Tally}, its labels bound (see {@link Tally.bind}). */
export interface BoundSeries {
  /** Adds `by` (default 1). */
  inc(by?: number): void;
}

/**
 * A counter or a gauge whose series can be read back synchronously. It is a prom-client collector
 * (`get()` returns name, help, type and values), so the registry exposes it like any other.
 */
export class Tally<L extends string = string> {
  /** Series by their sorted labels: one entry per label combination ever written. */
  private readonly series = new Map<string, { labels: MetricLabels<L>; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge',
  ) {}

  /** Adds `by` (default 1) to the series of `labels`. */
  inc(labels: MetricLabels<L> = {} as MetricLabels<L>, by = 1): void {
    const key = seriesKey(labels);
    const entry = this.series.get(key) ?? { labels: { ...labels }, value: 0 };
    entry.value += by;
    this.series.set(key, entry);
  }

  /**
   * The series of `labels`, bound once: its `inc` finds the series without hashing the labels again
   * (a counter on a hot path, such as one per request). It follows {@link reset} like `inc` does.
   */
  bind(labels: MetricLabels<L> = {} as MetricLabels<L>): BoundSeries {
    const key = seriesKey(labels);
    const own = { ...labels };
    return {
      inc: (by = 1) => {
        const entry = this.series.get(key);
        if (entry) entry.value += by;
        else this.series.set(key, { labels: { ...own }, value: by });
      },
    };
  }

  /** Sets the series of `labels` (gauges). */
  set(value: number, labels: MetricLabels<L> = {} as MetricLabels<L>): void {
    this.series.set(seriesKey(labels), { labels: { ...labels }, value });
  }

  /** The value of the series of `labels`; 0 when never written. */
  value(labels: MetricLabels<L> = {} as MetricLabels<L>): number {
    return this.series.get(seriesKey(labels))?.value ?? 0;
  }

  /** The sum over every series. */
  total(): number {
    let sum = 0;
    for (const { value } of this.series.values()) sum += value;
    return sum;
  }

  /** Drops every series (a gauge recomputed from scratch each round). */
  reset(): void {
    this.series.clear();
  }

  /** The collector interface prom-client's registry reads at scrape time. */
  get() {
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: 'sum' as const,
      values: [...this.series.values()].map(({ labels, value }) => ({ labels: { ...labels }, value })),
    };
  }
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
    const tally = new Tally<L>(spec.name, spec.help, type);
    this.registry.registerMetric(tally as unknown as Parameters<Registry['registerMetric']>[0]);
    return tally;
  }
}
