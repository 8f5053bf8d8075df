/**
 * At most `limit` calls of `fn` in flight over `items`, each item once, in order of start; resolves
 * when all have settled (`fn` must not reject: each item's outcome is its own business).
 * The drain evicts this way: in parallel like `kubectl drain`, but bounded, so a node with
 * hundreds of pods does not send hundreds of requests at once.
 */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  if (!(limit >= 1)) throw new RangeError(`parallelism must be at least 1, got ${limit}`);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
