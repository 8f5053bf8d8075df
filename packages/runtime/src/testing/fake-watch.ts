import type { KubeObject, WatchEvent } from '../api/types.js';
import type { Clock, TimerHandle } from '../clock.js';
import type { WatchCallbacks, WatchHandle } from '../transport/transport.js';

/**
 * One open watch of the in-memory cluster. Events are delivered asynchronously (one microtask
 * drains the backlog) but strictly in the order they were pushed, as on a real stream; `onClose`
 * is called exactly once, after every event pushed before the close.
 */
export class FakeWatch implements WatchHandle {
  private readonly backlog: Array<() => void> = [];
  private scheduled = false;
  // Once closing, nothing more is accepted; `onClose` is already in the backlog.
  private closing = false;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly callbacks: WatchCallbacks<KubeObject>,
    private readonly clock: Clock,
    private readonly onClosed: (watch: FakeWatch) => void,
    /** Bookmarks are sent only to watches that asked for them. */
    readonly allowBookmarks: boolean,
  ) {}

  /** Ends the stream cleanly after `seconds`, like the server-side `timeoutSeconds`. */
  closeAfter(seconds: number): void {
    this.timer = this.clock.setTimeout(() => this.close(), seconds * 1000);
  }

  get isOpen(): boolean {
    return !this.closing;
  }

  /** Queues an event; the object is copied so the receiver owns it, as if parsed from the wire. */
  push(event: WatchEvent<KubeObject>): void {
    if (this.closing) return;
    const copy: WatchEvent<KubeObject> =
      event.type === 'ERROR'
        ? { type: 'ERROR', status: structuredClone(event.status) }
        : { type: event.type, object: structuredClone(event.object) };
    this.enqueue(() => this.callbacks.onEvent(copy));
  }

  /** Server-side end of the stream: events already queued are still delivered, then `onClose`. */
  close(error?: Error): void {
    if (this.closing) return;
    this.closing = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.onClosed(this);
    this.enqueue(() => this.callbacks.onClose(error));
  }

  /** Client-side end: undelivered events are dropped, `onClose` is called with no error. */
  stop(): void {
    if (this.closing) return;
    this.backlog.length = 0;
    this.close();
  }

  private enqueue(deliver: () => void): void {
    this.backlog.push(deliver);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    // Items pushed by a callback while draining are delivered in this same loop, still in order.
    while (this.backlog.length > 0) {
      const deliver = this.backlog.shift() as () => void;
      deliver();
    }
  }
}
