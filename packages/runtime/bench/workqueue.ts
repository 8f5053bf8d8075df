import { WorkQueue } from '@capstan/runtime/workqueue';

/** The least a de-duplicating FIFO must do: the floor our queue's semantics are measured against. */
class PlainDedupQueue {
  private readonly items: string[] = [];
  private head = 0;
  private readonly queued = new Set<string>();
  add(key: string): void {
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.items.push(key);
  }
  get(): string | undefined {
    const key = this.items[this.head++];
    if (key !== undefined) this.queued.delete(key);
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    return key;
  }
}

/** add/get/done cycles per second over `keys` distinct keys, `rounds` times each. */
export async function workqueueThroughput(
  keys: number,
  rounds: number,
): Promise<{ ours: number; plain: number }> {
  const names = Array.from({ length: keys }, (_, i) => `ns/obj-${i}`);
  const ops = keys * rounds;

  const queue = new WorkQueue<string>({ name: 'bench' });
  let t = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (const key of names) queue.add(key);
    for (let i = 0; i < keys; i++) {
      const item = await queue.get();
      if (item.shutdown) throw new Error('unexpected shutdown');
      queue.forget(item.key);
      queue.done(item.key);
    }
  }
  const ours = ops / ((performance.now() - t) / 1000);
  queue.shutDown();

  const plain = new PlainDedupQueue();
  t = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (const key of names) plain.add(key);
    // Awaited like ours, so both pay the same microtask per get.
    for (let i = 0; i < keys; i++) await Promise.resolve(plain.get());
  }
  return { ours, plain: ops / ((performance.now() - t) / 1000) };
}
