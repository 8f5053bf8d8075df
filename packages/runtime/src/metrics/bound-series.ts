/**
 * Metric families whose series are bound once, by label values, and then written directly: a
 * reconcile adds to a number field instead of prom-client hashing its labels on every `inc` and
 * `observe` (even a prom-client `labels(...)` child hashes on each call). Each family is a
 * collector for prom-client's registry (`get()` gives name, help, type and values, in the shape
 * prom-client's own metrics give), so the exposition is the same as before. The manager's series
 * are {@link ValueFamily} and {@link HistogramFamily}; an operator's counters and gauges are
 * {@link Tally}, the same family with reads and by-label writes.
 */
import type { Registry } from 'prom-client';

/** A series of a counter or a gauge. */
export interface ValueSeries {
  value: number;
}

/** A series of a histogram: per-bucket counts (not cumulative), sum and count. */
export interface HistogramSeries {
  observe(value: number): void;
}

/** Label values by name; a name left out (or undefined) is the empty value. */
type Labels = Readonly<Record<string, string | undefined>>;

abstract class Family<S> {
  /** Series by their label values in label-name order. */
  protected readonly series = new Map<string, { labels: Record<string, string>; series: S }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge' | 'histogram',
    private readonly labelNames: readonly string[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  readonly aggregator = 'sum' as const;

  /** The series of `labels`, made (at zero) on first use; the same object on every later call. */
  protected seriesOf(labels: Labels): S {
    const values = this.labelNames.map((n) => labels[n] ?? '');
    const key = JSON.stringify(values);
    let entry = this.series.get(key);
    if (!entry) {
      const own: Record<string, string> = {};
      this.labelNames.forEach((n, i) => {
        if (labels[n] !== undefined) own[n] = values[i] as string;
      });
      entry = { labels: own, series: this.make() };
      this.series.set(key, entry);
    }
    return entry.series;
  }

  /** Zeroes every series (prom-client's `registry.resetMetrics()` calls it); bound series stay bound. */
  abstract reset(): void;

  /** The series of `labels` if one was made, without making it. */
  protected find(labels: Labels): S | undefined {
    return this.series.get(JSON.stringify(this.labelNames.map((n) => labels[n] ?? '')))?.series;
  }

  protected abstract make(): S;
}

/** Counter or gauge series: their values, as prom-client's registry reads them. */
abstract class ValueSeriesFamily extends Family<ValueSeries> {
  protected make(): ValueSeries {
    return { value: 0 };
  }

  /** The collector interface prom-client's registry reads at scrape time. */
  get() {
    const values = [...this.series.values()].map(({ labels, series }) => ({
      labels: { ...labels },
      value: series.value,
    }));
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/** A counter or a gauge family; write a bound series' `value` directly. */
export class ValueFamily extends ValueSeriesFamily {
  /** The series of `labels`, made (at zero) on first use; the same object on every later call. */
  bind(labels: Labels): ValueSeries {
    return this.seriesOf(labels);
  }

  reset(): void {
    for (const { series } of this.series.values()) series.value = 0;
  }
}

class Buckets implements HistogramSeries {
  /** Observations per bucket (the last one is +Inf), not cumulative. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += value;
    this.count++;
  }

  clear(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

/** A histogram family with fixed upper bounds (ascending), `le` as prom-client shows it. */
export class HistogramFamily extends Family<HistogramSeries> {
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    super(name, help, 'histogram', labelNames, registry);
  }

  /** The series of `labels`, made (empty) on first use; the same object on every later call. */
  bind(labels: Labels): HistogramSeries {
    return this.seriesOf(labels);
  }

  protected make(): HistogramSeries {
    return new Buckets(this.bounds);
  }

  reset(): void {
    for (const { series } of this.series.values()) (series as Buckets).clear();
  }

  /** The collector interface: cumulative `_bucket` samples, then `_sum` and `_count`, per series. */
  get() {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const { labels, series } of this.series.values()) {
      const b = series as Buckets;
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += b.counts[i] as number;
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...labels }, value: b.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { ...labels }, value: b.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...labels }, value: b.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/** Label values of one series, by label name. */
export type MetricLabels<L extends string = string> = Readonly<Partial<Record<L, string>>>;

/** One series of a {@link Tally}, its labels bound (see {@link Tally.bind}). */
export interface BoundSeries {
  /** Adds `by` (default 1). */
  inc(by?: number): void;
}

/**
 * A counter or a gauge whose series can be written by labels and read back synchronously (tests,
 * status): the family the manager's counters are, but {@link Tally.reset} drops its series, since an operator's
 * gauge is recomputed from scratch each round (a node gone must not stay exposed at zero).
 */
export class Tally<L extends string = string> extends ValueSeriesFamily {
  /** Counts the resets, so that a bound series finds its new series after one. */
  private resets = 0;

  constructor(
    name: string,
    help: string,
    type: 'counter' | 'gauge',
    labelNames: readonly L[],
    registry: Registry,
  ) {
    super(name, help, type, labelNames, registry);
  }

  /** Adds `by` (default 1) to the series of `labels`. */
  inc(labels: MetricLabels<L> = {} as MetricLabels<L>, by = 1): void {
    this.seriesOf(labels).value += by;
  }

  /**
   * The series of `labels`, bound once: its `inc` writes the series without hashing the labels
   * again (a counter on a hot path, such as one per request). It follows {@link reset} like `inc`.
   */
  bind(labels: MetricLabels<L> = {} as MetricLabels<L>): BoundSeries & ValueSeries {
    let series = this.seriesOf(labels);
    let resets = this.resets;
    const current = (): ValueSeries => {
      if (resets !== this.resets) {
        series = this.seriesOf(labels);
        resets = this.resets;
      }
      return series;
    };
    return {
      inc: (by = 1) => {
        current().value += by;
      },
      get value() {
        return current().value;
      },
      set value(v: number) {
        current().value = v;
      },
    };
  }

  /** Sets the series of `labels` (gauges). */
  set(value: number, labels: MetricLabels<L> = {} as MetricLabels<L>): void {
    this.seriesOf(labels).value = value;
  }

  /** The value of the series of `labels`; 0 when never written. */
  value(labels: MetricLabels<L> = {} as MetricLabels<L>): number {
    return this.find(labels)?.value ?? 0;
  }

  /** The sum over every series. */
  total(): number {
    let sum = 0;
    for (const { series } of this.series.values()) sum += series.value;
    return sum;
  }

  /** Drops every series (a gauge recomputed from scratch each round). */
  override reset(): void {
    this.series.clear();
    this.resets++;
  }
}
