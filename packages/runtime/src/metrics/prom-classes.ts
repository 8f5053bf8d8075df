/**
 * The prom-client classes the runtime uses, each from its own module (its default metrics are
 * default-metrics.ts). prom-client's index also loads the push gateway, cluster
 * aggregation and summaries: about 30 ms of every process's start-up (35 ms against 5 ms,
 * measured) and some 10 MB of RSS, for parts a controller does not use.
 *
 * Required, not imported: Node turns each CommonJS module imported from ESM into a module record
 * of its own, which cost more memory than the modules (in a bare process, 44.8 MB of RSS against
 * 43.8 MB for the four classes; 56.5 against 52.5 MB with the default metrics). A bundle inlines
 * these requires (scripts/bundle-operators.mjs). The types stay those of prom-client's index.
 */
import { createRequire } from 'node:module';
import type * as Prom from 'prom-client';

const require = createRequire(import.meta.url);

export const Counter = require('prom-client/lib/counter.js') as typeof Prom.Counter;
export type Counter<T extends string = string> = Prom.Counter<T>;
export const Gauge = require('prom-client/lib/gauge.js') as typeof Prom.Gauge;
export type Gauge<T extends string = string> = Prom.Gauge<T>;
export const Histogram = require('prom-client/lib/histogram.js') as typeof Prom.Histogram;
export type Histogram<T extends string = string> = Prom.Histogram<T>;
export const Registry = require('prom-client/lib/registry.js') as typeof Prom.Registry;
export type Registry = Prom.Registry;
