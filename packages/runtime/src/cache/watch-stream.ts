/**
 * A transport watch's callbacks turned into a pull-based stream: items are buffered in order and
 * handed out one at a time, with {@link WatchStream.next} (waits) or {@link WatchStream.poll}
 * (takes what is buffered, so a burst is drained in one step). After the close item nothing more
 * is accepted.
 */

import type { KubeObject, WatchEvent } from '../api/types.js';
import type { Clock } from '../clock.js';
import type { WatchCallbacks, WatchHandle } from '../transport/transport.js';

/** One item of a stream: an event, or its end (with the cause when it was not clean). */
export type WatchItem<T extends KubeObject> =
  | { kind: 'event'; event: WatchEvent<T> }
  | { kind: 'closed'; error?: Error };

export class WatchStream<T extends KubeObject> {
  /** Items not handed out yet are `buffer[head..]`; the array is reset whenever it drains. */
  private buffer: WatchItem<T>[] = [];
  private head = 0;
  private waiter: ((item: WatchItem<T>) => void) | undefined;
  private closed = false;
  private handle: WatchHandle | undefined;
  private stopRequested = false;
  /** When the watch was requested, and how many events it delivered: to spot useless watches. */
  readonly startedAt: number;
  eventCount = 0;

  readonly callbacks: WatchCallbacks<T>;

  /** `omitManagedFields`: passed on to the transport (see {@link WatchCallbacks.omitManagedFields}). */
  constructor(clock: Clock, omitManagedFields = false) {
    this.startedAt = clock.now();
    this.callbacks = {
      onEvent: (event) => {
        this.eventCount++;
        this.push({ kind: 'event', event });
      },
      onClose: (error) => this.push(error ? { kind: 'closed', error } : { kind: 'closed' }),
      omitManagedFields,
    };
  }

  attach(handle: WatchHandle): void {
    this.handle = handle;
    if (this.stopRequested) handle.stop();
  }

  /** The next buffered item, or undefined when none is waiting. */
  poll(): WatchItem<T> | undefined {
    if (this.head === this.buffer.length) return undefined;
    const item = this.buffer[this.head] as WatchItem<T>;
    this.buffer[this.head++] = undefined as unknown as WatchItem<T>; // let it be collected
    if (this.head === this.buffer.length) {
      this.buffer = [];
      this.head = 0;
    }
    return item;
  }

  /** The next item; resolves with the close item once the stream has ended. */
  next(): Promise<WatchItem<T>> {
    const item = this.poll();
    if (item) return Promise.resolve(item);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /** Ends the watch; a pending {@link next} resolves with a clean close even if the transport never calls back. */
  stop(): void {
    this.stopRequested = true;
    this.handle?.stop();
    this.push({ kind: 'closed' });
  }

  private push(item: WatchItem<T>): void {
    if (this.closed) return;
    if (item.kind === 'closed') this.closed = true;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter(item);
    } else this.buffer.push(item);
  }
}
