/**
 * One measurement in a fresh process (so heaps do not mix): syncs an informer over the benchmark's
 * ConfigMaps and prints `{ syncMs, heapBytes }` as JSON. Run with `--expose-gc`.
 *   node --expose-gc informer-probe.js <ours|client-node> <kubeconfig> <namespace> <count>
 */

import { SharedInformer } from '@capstan/runtime/cache';
import { ConfigMap, HttpTransport } from '@capstan/runtime/client';
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';

const [which, kubeconfig, namespace, countText] = process.argv.slice(2) as [string, string, string, string];
const count = Number(countText);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const kc = new KubeConfig();
kc.loadFromFile(kubeconfig as string);

const settle = async () => {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
};

async function ours(): Promise<{ size: () => number; stop: () => Promise<unknown> }> {
  const informer = new SharedInformer(new HttpTransport(kc), ConfigMap, { namespace });
  informer.start();
  await informer.waitForSync(120_000);
  return { size: () => informer.store.size, stop: () => informer.stop() };
}

async function clientNode(): Promise<{ size: () => number; stop: () => Promise<unknown> }> {
  const api = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${namespace}/configmaps`, () =>
    api.listNamespacedConfigMap({ namespace }),
  );
  await informer.start();
  // client-node's cache may still be filling after start() resolves (its issue #1952): wait for it.
  while (informer.list().length < count) await new Promise((r) => setTimeout(r, 1));
  return { size: () => informer.list().length, stop: () => informer.stop() };
}

const sync = which === 'ours' ? ours : clientNode;
// A first sync warms the code paths (lazy compilation, connection pools) and is thrown away, so
// the figures are per object, not start-up costs divided by the object count.
const warm = await sync();
await warm.stop();
const before = await settle();
const started = performance.now();
const informer = await sync();
const syncMs = performance.now() - started;
const after = await settle();
if (informer.size() !== count) throw new Error(`${which}: cached ${informer.size()} of ${count}`);
process.stdout.write(`${JSON.stringify({ syncMs, heapBytes: after - before })}\n`);
await informer.stop();
process.exit(0);
