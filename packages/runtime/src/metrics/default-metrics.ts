/**
 * The process and Node.js metrics (`process_*`, `nodejs_*`) that prom-client's
 * `collectDefaultMetrics` registers, registered here metric module by metric module. Its CPU
 * counters (`processCpuTotal`) load the OpenTelemetry API, some forty modules, only to label
 * exemplars, which the runtime never enables: measured on the agent started from dist, ~1 MB of
 * its idle RSS. Those three counters are the runtime's own, under the same names and meaning.
 */
import { createRequire } from 'node:module';
import type * as Prom from 'prom-client';
import { Counter } from './prom-classes.js';

const require = createRequire(import.meta.url);

/** A prom-client metric module: registers its metrics on the registry. */
type MetricModule = (registry: Prom.Registry, config: Record<string, unknown>) => void;

/**
 * prom-client's default metric modules but `processCpuTotal`, in its order. Each `require` is
 * spelt out, not built from a name: a bundle inlines only the modules it can see.
 */
const promClientMetrics = (): MetricModule[] => [
  require('prom-client/lib/metrics/processStartTime.js'),
  require('prom-client/lib/metrics/osMemoryHeap.js'),
  require('prom-client/lib/metrics/processOpenFileDescriptors.js'),
  require('prom-client/lib/metrics/processMaxFileDescriptors.js'),
  require('prom-client/lib/metrics/eventLoopLag.js'),
  // prom-client registers it only where Node can tell active resources.
  ...(typeof process.getActiveResourcesInfo === 'function'
    ? [require('prom-client/lib/metrics/processResources.js')]
    : []),
  require('prom-client/lib/metrics/processHandles.js'),
  require('prom-client/lib/metrics/processRequests.js'),
  require('prom-client/lib/metrics/heapSizeAndUsed.js'),
  require('prom-client/lib/metrics/heapSpacesSizeAndUsed.js'),
  require('prom-client/lib/metrics/version.js'),
  require('prom-client/lib/metrics/gc.js'),
];

/** prom-client's default sampling precision of the event-loop lag, in ms. */
const EVENT_LOOP_PRECISION_MS = 10;

/**
 * Registers on `registry` every metric prom-client's `collectDefaultMetrics` would (same names,
 * help, types and labels), loading their modules on the first call.
 */
export function collectDefaultMetrics(registry: Prom.Registry): void {
  registerProcessCpu(registry);
  const config = { register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_PRECISION_MS };
  for (const register of promClientMetrics()) register(registry, config);
}

/**
 * `process_cpu_user_seconds_total`, `process_cpu_system_seconds_total` and their sum
 * `process_cpu_seconds_total`: CPU time since the counters were registered, read at scrape time.
 */
export function registerProcessCpu(registry: Prom.Registry): void {
  let last = process.cpuUsage();
  const registers = [registry];
  // The user counter comes first, as in prom-client: the text keeps its order, and its collect
  // runs before the other two are read, setting all three from one reading so they add up.
  const user = new Counter({
    name: 'process_cpu_user_seconds_total',
    help: 'Total user CPU time spent in seconds.',
    registers,
    collect() {
      const now = process.cpuUsage();
      const userMicros = now.user - last.user;
      const systemMicros = now.system - last.system;
      last = now;
      user.inc(userMicros / 1e6);
      system.inc(systemMicros / 1e6);
      total.inc((userMicros + systemMicros) / 1e6);
    },
  });
  const system = new Counter({
    name: 'process_cpu_system_seconds_total',
    help: 'Total system CPU time spent in seconds.',
    registers,
  });
  const total = new Counter({
    name: 'process_cpu_seconds_total',
    help: 'Total user and system CPU time spent in seconds.',
    registers,
  });
}
