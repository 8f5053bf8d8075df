import { WorkQueue } from '@capstan/runtime/workqueue';

/**
 * Add/get/done cycles per second of Capstan's work queue over `keys` distinct keys, `rounds` times
 * each: the loop the Go baseline runs on client-go's queue (add every key, then get, forget, done).
 */
export async function workqueueThroughput(keys: number, rounds: number): Promise<number> {
  const names = Array.from({ length: keys }, (_, i) => `ns/obj-${i}`);
  const queue = new WorkQueue<string>({ name: 'bench' });
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
  return perSecond;
}
