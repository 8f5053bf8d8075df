/**
 * `npm run bench`: the runtime's benchmarks, each printed beside a baseline run in the same
 * process tree on the same machine, as ratios.
 *  1. Informer: initial sync time and heap bytes per cached object for 10,000 ConfigMaps of ~1 KB,
 *     ours against client-node's own informer, on one envtest apiserver; medians of alternated runs.
 *  2. Work queue: add/get/done cycles per second, ours against a plain de-duplicating FIFO.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ControlPlane } from '@capstan/envtest';
import { CoreV1Api } from '@kubernetes/client-node';
import { workqueueThroughput } from './workqueue.js';

const COUNT = Number(process.env.BENCH_OBJECTS ?? 10_000);
// The sync time is mostly the API server serializing 10 MB; its noise needs several alternated runs.
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const probe = fileURLToPath(new URL('./informer-probe.js', import.meta.url));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function seed(plane: ControlPlane, namespace: string): Promise<void> {
  const api = plane.kubeConfig.makeApiClient(CoreV1Api);
  await api.createNamespace({ body: { metadata: { name: namespace } } });
  const payload = 'x'.repeat(700); // with metadata and managedFields, about 1 KB of JSON each
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < COUNT; i = next++) {
      await api.createNamespacedConfigMap({
        namespace,
        body: {
          metadata: { name: `cm-${i}`, labels: { app: 'bench', index: String(i) } },
          data: { payload },
        },
      });
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

function measure(which: 'ours' | 'client-node', kubeconfig: string, namespace: string) {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', probe, which, kubeconfig, namespace, String(COUNT)],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    },
  );
  return JSON.parse(out.trim().split('\n').pop() as string) as { syncMs: number; heapBytes: number };
}

const row = (name: string, ours: string, base: string, ratio: number, target: string) =>
  `${name.padEnd(30)}${ours.padStart(14)}${base.padStart(16)}${ratio.toFixed(2).padStart(9)}x   ${target}`;

// The queue first, while no apiserver or etcd competes for the CPU; a short run warms the JIT.
await workqueueThroughput(1_000, 5);
const wq = await workqueueThroughput(10_000, 20);

// With the watch cache, as in production: an initial list at resourceVersion 0 is served from it.
const plane = await ControlPlane.start({ watchCache: true });
try {
  const namespace = 'bench';
  const t = performance.now();
  process.stderr.write(`seeding ${COUNT} ConfigMaps...\n`);
  await seed(plane, namespace);
  process.stderr.write(
    `seeded in ${((performance.now() - t) / 1000).toFixed(1)} s; ${RUNS} alternated runs each\n`,
  );
  const ours: Array<{ syncMs: number; heapBytes: number }> = [];
  const base: Array<{ syncMs: number; heapBytes: number }> = [];
  for (let i = 0; i < RUNS; i++) {
    base.push(measure('client-node', plane.kubeconfigPath, namespace));
    ours.push(measure('ours', plane.kubeconfigPath, namespace));
  }
  const oSync = median(ours.map((r) => r.syncMs));
  const bSync = median(base.map((r) => r.syncMs));
  const oHeap = median(ours.map((r) => r.heapBytes)) / COUNT;
  const bHeap = median(base.map((r) => r.heapBytes)) / COUNT;

  const lines = [
    '',
    `${'benchmark'.padEnd(30)}${'capstan'.padStart(14)}${'baseline'.padStart(16)}${'ratio'.padStart(10)}   target`,
    row(
      `informer sync, ${COUNT} CMs`,
      `${oSync.toFixed(0)} ms`,
      `${bSync.toFixed(0)} ms`,
      oSync / bSync,
      '<= 1.00x (client-node makeInformer)',
    ),
    row(
      'informer heap per object',
      `${oHeap.toFixed(0)} B`,
      `${bHeap.toFixed(0)} B`,
      oHeap / bHeap,
      '<= 0.70x (client-node makeInformer)',
    ),
    row(
      'workqueue add/get/done',
      `${(wq.ours / 1e6).toFixed(2)} M/s`,
      `${(wq.plain / 1e6).toFixed(2)} M/s`,
      wq.ours / wq.plain,
      'throughput vs a plain dedup FIFO',
    ),
    '',
    `runs: ${JSON.stringify({ ours, clientNode: base })}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const pass = oSync / bSync <= 1.0 && oHeap / bHeap <= 0.7;
  process.stdout.write(`targets ${pass ? 'met' : 'NOT met'}\n`);
} finally {
  await plane.stop();
}
