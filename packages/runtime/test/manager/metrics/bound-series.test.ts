/**
 * The bound metric families expose exactly what prom-client's own Counter, Gauge and Histogram
 * expose for the same writes: the registry's text is compared line for line.
 */
import fc from 'fast-check';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HistogramFamily, ValueFamily } from '../../../src/metrics/bound-series.js';

const BUCKETS = [0.005, 0.01, 0.1, 1, 10];
const labelValue = fc.constantFrom('a', 'b', 'with "quote"', 'ü');
const write = fc.record({
  name: labelValue,
  controller: labelValue,
  value: fc.double({ min: 0, max: 20, noNaN: true }),
});

describe('bound metric families', () => {
  it('a histogram family exposes what a prom-client Histogram does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(write, { maxLength: 30 }), async (writes) => {
        const theirs = new Registry();
        const ours = new Registry();
        const help = 'h';
        const reference = new Histogram({
          name: 'x_seconds',
          help,
          labelNames: ['name', 'controller'],
          buckets: BUCKETS,
          registers: [theirs],
        });
        const family = new HistogramFamily('x_seconds', help, ['name', 'controller'], BUCKETS, ours);
        for (const { name, controller, value } of writes) {
          reference.observe({ name, controller }, value);
          family.bind({ name, controller }).observe(value);
        }
        expect(await ours.metrics()).toBe(await theirs.metrics());
      }),
    );
  });

  it('a value family exposes what a prom-client Counter and Gauge do', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(write, { maxLength: 30 }), async (writes) => {
        const theirs = new Registry();
        const ours = new Registry();
        const counter = new Counter({
          name: 'c_total',
          help: 'c',
          labelNames: ['name', 'controller'],
          registers: [theirs],
        });
        const gauge = new Gauge({
          name: 'g',
          help: 'g',
          labelNames: ['name', 'controller'],
          registers: [theirs],
        });
        const counters = new ValueFamily('c_total', 'c', 'counter', ['name', 'controller'], ours);
        const gauges = new ValueFamily('g', 'g', 'gauge', ['name', 'controller'], ours);
        for (const { name, controller, value } of writes) {
          counter.inc({ name, controller }, value);
          counters.bind({ name, controller }).value += value;
          gauge.set({ name, controller }, value);
          gauges.bind({ name, controller }).value = value;
        }
        expect(await ours.metrics()).toBe(await theirs.metrics());
      }),
    );
  });

  it('hands out the same series for the same labels, and resetMetrics zeroes it in place', async () => {
    const registry = new Registry();
    const family = new ValueFamily('c_total', 'c', 'counter', ['controller'], registry);
    const first = family.bind({ controller: 'a' });
    first.value += 3;
    expect(family.bind({ controller: 'a' })).toBe(first);
    registry.resetMetrics();
    expect(first.value).toBe(0);
    first.value++;
    expect(await registry.metrics()).toContain('c_total{controller="a"} 1');
  });
});
