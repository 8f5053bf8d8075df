/**
 * Memos over lists read from the cache. The cache hands out deep-frozen objects and replaces an
 * object on every change, so a list holding the same frozen objects as before describes the same
 * world: what was derived from the old list still holds, and is not computed again.
 */

/** Whether two lists hold the same objects in the same order, all frozen (so none changed since). */
export function sameFrozenObjects(a: readonly object[], b: readonly object[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] || !Object.isFrozen(a[i])) return false;
  return true;
}

/** A value derived from a list, derived again only when the list no longer holds the same objects. */
export class ListMemo<T extends object, V> {
  private items: readonly T[] | undefined;
  private value: V | undefined;

  constructor(private readonly derive: (items: readonly T[]) => V) {}

  /** The value for `items`: the remembered one while they are the same frozen objects. */
  of(items: readonly T[]): V {
    if (this.items === undefined || !sameFrozenObjects(items, this.items)) {
      this.value = this.derive(items);
      this.items = [...items];
    }
    return this.value as V;
  }
}
