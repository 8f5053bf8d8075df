/// <reference path="./prom-client-lib.d.ts" />
/**
 * The prom-client classes the runtime uses, each from its own module. prom-client's index also
 * loads the push gateway, cluster aggregation, summaries and the default metrics: about 30 ms of
 * every process's start-up (measured 35 ms against 5 ms), for parts a controller rarely uses.
 * Its types stay those of the index (see prom-client-lib.d.ts).
 */
import type * as Prom from 'prom-client';
import CounterClass from 'prom-client/lib/counter.js';
import GaugeClass from 'prom-client/lib/gauge.js';
import HistogramClass from 'prom-client/lib/histogram.js';
import RegistryClass from 'prom-client/lib/registry.js';

export const Counter: typeof Prom.Counter = CounterClass;
export type Counter<T extends string = string> = Prom.Counter<T>;
export const Gauge: typeof Prom.Gauge = GaugeClass;
export type Gauge<T extends string = string> = Prom.Gauge<T>;
export const Histogram: typeof Prom.Histogram = HistogramClass;
export type Histogram<T extends string = string> = Prom.Histogram<T>;
export const Registry: typeof Prom.Registry = RegistryClass;
export type Registry = Prom.Registry;

/**
 * Registers prom-client's process and Node.js metrics on `registry`, loading their modules (some
 * fifteen) only now.
 */
export async function collectDefaultMetrics(registry: Prom.Registry): Promise<void> {
  const { default: collect } = await import('prom-client/lib/defaultMetrics.js');
  collect({ register: registry });
}
