/**
 * Capstan's side of the controller workloads, written as a user would write the program with
 * @capstan/runtime: a manager, one ConfigMap controller with 4 workers, a reconciler reading from the
 * cache. Runs in a fresh process; prints `{ ms }` (from process start to the last key reconciled),
 * `startupMs` (to the body's first line: Node's start-up and the imports), `afterStartupMs`,
 * `syncedMs` (from the first line to the cache's sync), `reconcilePhaseMs` (sync to last key) and
 * `cpuMs` (the process's CPU time to the last key: what a feature costs, less swayed by a busy
 * machine than wall time).
 *   KUBECONFIG=... node controller-probe.js <read|write> <namespace> <count>
 * `write`: each reconcile merge-patches a run annotation onto its ConfigMap unless it carries it.
 * `PROBE_WIRE=json`: speak JSON only (by default built-in kinds are read as protobuf).
 * `PROBE_RYOW=off`: the client without read-your-own-writes (on by default), to measure its cost.
 */
import { loadKubeConfig, Manager } from '@capstan/runtime';
import { ConfigMap, HttpTransport } from '@capstan/runtime/client';
import { objectCount } from './object-count.js';

// The module graph is loaded once the body runs: what came before is Node's start-up and imports.
const startupMs = performance.now();
const [mode, namespace, countText] = process.argv.slice(2) as [string, string, string];
const count = objectCount(countText, 'controller-probe.js <read|write> <namespace> <count>');
const runAnnotation = 'bench.capstan.dev/run';
const runId = `ts-${Date.now()}`;

const kubeConfig = loadKubeConfig();
// PROBE_WIRE=json: the bench's row with both sides on JSON.
const onJson = process.env.PROBE_WIRE === 'json';
const manager = Manager.create({
  kubeConfig,
  ...(onJson ? { transport: new HttpTransport(kubeConfig, { protobuf: false }) } : {}),
  namespace,
  metricsBindAddress: '0',
  healthProbeBindAddress: '0',
  logLevel: 'warn',
  readYourWrites: process.env.PROBE_RYOW !== 'off',
});
const seen = new Set<string>();
let finish: () => void = () => {};
const done = new Promise<void>((resolve) => {
  finish = resolve;
});
manager
  .controllerBuilder()
  .named('bench')
  .for(ConfigMap)
  .withOptions({ maxConcurrentReconciles: 4 })
  .build(async (request) => {
    const configMap = await manager.client.get(ConfigMap, request);
    if (mode === 'write' && configMap.metadata.annotations?.[runAnnotation] !== runId) {
      await manager.client.patch(ConfigMap, request, 'merge', {
        metadata: { annotations: { [runAnnotation]: runId } },
      });
    }
    seen.add(request.name);
    if (seen.size === count) finish();
  });
// When the controller's informer has synced: what follows is the reconcile phase.
let syncedAt: number | undefined;
void manager.cache.waitForCacheSync(600_000).then(
  () => {
    syncedAt = performance.now();
  },
  () => {},
);
const stop = new AbortController();
const running = manager.start(stop.signal);
await Promise.race([done, running.then(() => Promise.reject(new Error('manager stopped early')))]);
const ms = performance.now();
if (syncedAt === undefined) throw new Error('every key was reconciled before the cache was seen synced');
const cpu = process.cpuUsage();
const phases = {
  syncedMs: syncedAt - startupMs,
  reconcilePhaseMs: ms - syncedAt,
  cpuMs: (cpu.user + cpu.system) / 1000,
};
process.stdout.write(`${JSON.stringify({ ms, startupMs, afterStartupMs: ms - startupMs, ...phases })}\n`);
stop.abort();
process.exit(0);
