import { spawnSync } from 'node:child_process';
import * as prom from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { collectDefaultMetrics, registerProcessCpu } from '../../../src/metrics/default-metrics.js';

/** Each metric's name, type and help, in registry order. */
async function shapes(registry: prom.Registry): Promise<Array<{ name: string; type: string; help: string }>> {
  const metrics = await registry.getMetricsAsJSON();
  return metrics.map(({ name, type, help }) => ({ name, type: String(type), help }));
}

const sample = (text: string, name: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (line === undefined) throw new Error(`no sample of ${name} in:\n${text}`);
  return Number(line.slice(name.length + 1));
};

/** CPU time (user + system) since `start`, in seconds. */
const cpuSince = (start: NodeJS.CpuUsage): number => {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1e6;
};

/** Spins until this process has used `seconds` of CPU since `start`: CPU time, not wall time. */
function burnCpu(start: NodeJS.CpuUsage, seconds: number): void {
  let x = 0;
  while (cpuSince(start) < seconds) for (let i = 0; i < 10_000; i++) x += Math.sqrt(x + 1);
  expect(x).toBeGreaterThan(0);
}

describe('collectDefaultMetrics', () => {
  it("registers the metrics prom-client's own collectDefaultMetrics does: names, types, help, order", async () => {
    const theirs = new prom.Registry();
    prom.collectDefaultMetrics({ register: theirs });
    const ours = new prom.Registry();
    collectDefaultMetrics(ours);
    const expected = await shapes(theirs);
    expect(expected.map((m) => m.name)).toContain('process_cpu_seconds_total');
    expect(await shapes(ours)).toEqual(expected);
  });

  it('counts CPU time since registration from one reading: user, system and their sum', async () => {
    const readings = [
      { user: 1_000_000, system: 500_000 },
      { user: 3_000_000, system: 1_250_000 },
      { user: 3_500_000, system: 2_000_000 },
    ];
    const cpuUsage = vi
      .spyOn(process, 'cpuUsage')
      .mockImplementation(() => readings.shift() ?? { user: 0, system: 0 });
    try {
      const registry = new prom.Registry();
      registerProcessCpu(registry);
      const first = await registry.metrics();
      expect(sample(first, 'process_cpu_user_seconds_total')).toBeCloseTo(2, 9);
      expect(sample(first, 'process_cpu_system_seconds_total')).toBeCloseTo(0.75, 9);
      expect(sample(first, 'process_cpu_seconds_total')).toBeCloseTo(2.75, 9);
      const second = await registry.metrics();
      expect(sample(second, 'process_cpu_user_seconds_total')).toBeCloseTo(2.5, 9);
      expect(sample(second, 'process_cpu_system_seconds_total')).toBeCloseTo(1.5, 9);
      expect(sample(second, 'process_cpu_seconds_total')).toBeCloseTo(4, 9);
      expect(cpuUsage).toHaveBeenCalledTimes(3); // one reading at registration, one per scrape
    } finally {
      cpuUsage.mockRestore();
    }
  });

  it("reads the process's real CPU time since registration, within what the process measured around it", async () => {
    const registry = new prom.Registry();
    const beforeRegistration = process.cpuUsage();
    collectDefaultMetrics(registry);
    const afterRegistration = process.cpuUsage();
    burnCpu(afterRegistration, 0.05);
    // The counter reads once at registration and once at the scrape, both inside these bounds:
    // load may stretch the wall time, never the order of the readings.
    const atLeast = cpuSince(afterRegistration);
    const counted = sample(await registry.metrics(), 'process_cpu_seconds_total');
    const atMost = cpuSince(beforeRegistration);
    expect(atLeast).toBeGreaterThanOrEqual(0.05);
    expect(counted).toBeGreaterThanOrEqual(atLeast - 1e-6);
    expect(counted).toBeLessThanOrEqual(atMost + 1e-6);
  });

  it('loads no OpenTelemetry module (prom-client needs it only for exemplars)', () => {
    // A process of its own, on the built module: this test process may have loaded it otherwise.
    const built = new URL('../../../dist/metrics/default-metrics.js', import.meta.url).pathname;
    const script = [
      "import { createRequire } from 'node:module';",
      // Not prom-client's index: it loads every default metric module itself.
      "const Registry = createRequire(import.meta.url)('prom-client/lib/registry.js');",
      `const { collectDefaultMetrics } = await import(${JSON.stringify(built)});`,
      'const registry = new Registry();',
      'collectDefaultMetrics(registry);',
      'const text = await registry.metrics();',
      'const loaded = Object.keys(createRequire(import.meta.url).cache);',
      "console.log(JSON.stringify({ otel: loaded.filter((f) => f.includes('@opentelemetry')), cpu: text.includes('process_cpu_seconds_total'), lag: text.includes('nodejs_eventloop_lag_seconds') }));",
      'process.exit(0);',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: new URL('../../..', import.meta.url).pathname,
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({ otel: [], cpu: true, lag: true });
  });
});
