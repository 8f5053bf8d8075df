import { loadavg } from 'node:os';
import { MetricsRegistry } from '@capstan/runtime/manager';
import { WorkQueue } from '@capstan/runtime/workqueue';
import { runProbe } from './baseline.js';
import { median, pairsMeeting, type Row } from './table.js';

/**
 * Add/get/done cycles per second of Capstan's work queue over `keys` distinct keys, `rounds` times
 * each: the loop the Go baseline runs on client-go's queue (add every key, then get, forget, done).
 * With `metrics`, the queue reports to a manager's Prometheus series (`workqueue_*`), as a
 * controller's queue does under a manager; without, to nothing, as a bare queue does.
 */
export async function workqueueThroughput(keys: number, rounds: number, metrics: boolean): Promise<number> {
  const names = Array.from({ length: keys }, (_, i) => `ns/obj-${i}`);
  const registry = metrics ? new MetricsRegistry({ defaultMetrics: false }) : undefined;
  const queue = new WorkQueue<string>({
    name: 'bench',
    ...(registry ? { metrics: registry.workQueueMetrics('bench') } : {}),
  });
  const unregister = registry?.registerQueue(queue);
  const started = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (const key of names) queue.add(key);
    for (let i = 0; i < keys; i++) {
      const item = await queue.get();
      if (item.shutdown) throw new Error('unexpected shutdown');
      queue.forget(item.key);
      queue.done(item.key);
    }
  }
  const perSecond = (keys * rounds) / ((performance.now() - started) / 1000);
  queue.shutDown();
  unregister?.();
  return perSecond;
}

/** The two settings the rows compare at, the row's target for each, and what the baseline is. */
const SETTINGS = [
  { metrics: false, limit: 0.5, against: "plain client-go's rate-limiting queue, no metrics" },
  { metrics: true, limit: 1, against: "client-go's queue with controller-runtime's metrics" },
] as const;

/**
 * The queue rows: ours against client-go's (the Go program `go`), 10,000 keys × 20 rounds, `runs`
 * alternated pairs for each metrics setting, both sides with the same setting (go/queue.go).
 * Runs first in the bench, while no apiserver competes for the CPU; a short run warms the JIT.
 */
export async function queueRows(go: () => string, runs: number, log: (line: string) => void): Promise<Row[]> {
  for (const { metrics } of SETTINGS) await workqueueThroughput(1_000, 5, metrics);
  const rows: Row[] = [];
  for (const { metrics, limit, against } of SETTINGS) {
    const ours: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < runs; i++) {
      const args = ['queue', '10000', '20', ...(metrics ? ['metrics'] : [])];
      base.push((await runProbe(go(), args)).perSecond as number);
      ours.push(await workqueueThroughput(10_000, 20, metrics));
    }
    const [o, b] = [median(ours), median(base)];
    const perSecond = (x: number) => `${(x / 1e6).toFixed(2)} M/s`;
    const setting = `metrics ${metrics ? 'on' : 'off'}`;
    log(
      `queue, ${setting}: ${perSecond(o)} against ${perSecond(b)}, load average ${loadavg()[0]?.toFixed(2)}`,
    );
    rows.push({
      name: `workqueue add/get/done, ${setting}`,
      ours: perSecond(o),
      base: perSecond(b),
      ratio: o / b,
      goal: '>=',
      limit,
      against,
      pairs: pairsMeeting(ours, base, '>=', limit),
    });
  }
  return rows;
}
