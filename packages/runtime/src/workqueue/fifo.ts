/**
 * A first-in first-out list with O(1) push and shift, on a ring buffer whose capacity doubles
 * when full. `Array.prototype.shift` is O(n), which a queue holding a 10k-object initial list
 * cannot afford on every `get`; a ring reuses its slots, so a queue that fills and drains over and
 * over allocates nothing once it has grown. It keeps its high-water capacity (a slot is a pointer:
 * 1 MB after a 100k-key list), as a queue that filled once is likely to fill again.
 */
export class Fifo<T> {
  private slots: Array<T | undefined> = new Array(16);
  /** Index of the head; `mask` = capacity - 1 (capacity is a power of two). */
  private head = 0;
  private size = 0;
  private mask = 15;

  /** The number of items in the list. */
  get length(): number {
    return this.size;
  }

  /** Appends `item` at the tail. */
  push(item: T): void {
    if (this.size > this.mask) this.grow();
    this.slots[(this.head + this.size) & this.mask] = item;
    this.size++;
  }

  /** Removes and returns the head, or `undefined` when empty. */
  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.slots[this.head];
    this.slots[this.head] = undefined; // let the item be collected
    this.head = (this.head + 1) & this.mask;
    this.size--;
    return item;
  }

  /** The head, without removing it, or `undefined` when empty. */
  peek(): T | undefined {
    return this.size === 0 ? undefined : this.slots[this.head];
  }

  /** The items from head to tail. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.size; i++) yield this.slots[(this.head + i) & this.mask] as T;
  }

  private grow(): void {
    const capacity = this.slots.length * 2;
    const slots = new Array<T | undefined>(capacity);
    for (let i = 0; i < this.size; i++) slots[i] = this.slots[(this.head + i) & this.mask];
    this.slots = slots;
    this.head = 0;
    this.mask = capacity - 1;
  }
}
