/**
 * A first-in first-out list with O(1) amortised push and shift. `Array.prototype.shift` is O(n),
 * which a queue holding a 10k-object initial list cannot afford on every `get`.
 */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  /** The number of items in the list. */
  get length(): number {
    return this.items.length - this.head;
  }

  /** Appends `item` at the tail. */
  push(item: T): void {
    this.items.push(item);
  }

  /** Removes and returns the head, or `undefined` when empty. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head] as T;
    this.head++;
    // Compact once the consumed prefix dominates, so memory follows the live length.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** The head, without removing it, or `undefined` when empty. */
  peek(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined;
  }

  /** The items from head to tail. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i] as T;
  }
}
