/**
 * Capstan's side of the informer workloads, in a fresh process (so heaps do not mix): syncs a
 * ConfigMap informer over a namespace and prints `{ syncMs, heapBytes, rssBytes }` as JSON.
 *   node --expose-gc informer-probe.js <kubeconfig> <namespace> <count> [warm] [metadata]
 * `warm`: a first sync warms the code paths (lazy compilation, connection pool) and is thrown away,
 * so heap per object is not start-up cost divided by the count. `metadata`: a metadata-only
 * informer (`metadataOnly(ConfigMap)`: PartialObjectMetadata, no data) instead of the full one.
 */

import { loadKubeConfig } from '@capstan/runtime';
import { SharedInformer } from '@capstan/runtime/cache';
import { ConfigMap, HttpTransport, metadataOnly } from '@capstan/runtime/client';
import { objectCount } from './object-count.js';

const [kubeconfig, namespace, countText, ...modes] = process.argv.slice(2) as [
  string,
  string,
  string,
  ...string[],
];
const count = objectCount(countText, 'informer-probe.js <kubeconfig> <namespace> <count> [warm] [metadata]');
const type = modes.includes('metadata') ? metadataOnly(ConfigMap) : ConfigMap;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const transport = new HttpTransport(loadKubeConfig({ kubeconfig }));

const settle = async () => {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
};

async function sync(): Promise<SharedInformer> {
  const informer = new SharedInformer(transport, type, { namespace });
  informer.start();
  await informer.waitForSync(300_000);
  return informer;
}

if (modes.includes('warm')) await (await sync()).stop();
const before = await settle();
const started = performance.now();
const informer = await sync();
const syncMs = performance.now() - started;
const after = await settle();
if (informer.store.size !== count) throw new Error(`cached ${informer.store.size} of ${count}`);
const rssBytes = process.memoryUsage().rss;
process.stdout.write(`${JSON.stringify({ syncMs, heapBytes: after - before, rssBytes })}\n`);
await informer.stop();
process.exit(0);
