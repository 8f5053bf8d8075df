/**
 * One watch stream over HTTP, from the moment the server answered 200: decodes events as bytes
 * arrive, hands them to the callbacks in order, guards the stream with an idle timer, and reports its
 * end exactly once. Whatever carries the bytes (the runtime's connection, or node:http behind a
 * proxy) calls {@link HttpWatch.receive}, {@link HttpWatch.finish} and {@link HttpWatch.fail}.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { KubeObject } from '../api/types.js';
import type { Clock, TimerHandle } from '../clock.js';
import { isProtobuf } from './protobuf/envelope.js';
import { ProtobufWatchDecoder } from './protobuf/watch-decoder.js';
import type { WatchCallbacks, WatchHandle } from './transport.js';
import { WatchDecoder } from './watch-decoder.js';

/** A watch ended because nothing arrived on it for too long (a half-open connection, most likely). */
export class WatchIdleTimeoutError extends Error {
  override readonly name = 'WatchIdleTimeoutError';
  constructor(readonly idleTimeoutMs: number) {
    super(`watch: nothing received for ${idleTimeoutMs} ms; assuming the connection is dead`);
  }
}

/**
 * A running watch on a streaming HTTP response.
 *
 * Invariants: once `closed` is set no callback runs again; `onClose` is called exactly once, with
 * no error for a clean end (the server ended the stream, or {@link HttpWatch.stop}) and with the
 * cause otherwise (network error, malformed line, idle timeout, a callback that threw).
 */
export class HttpWatch<T extends KubeObject> implements WatchHandle {
  private readonly decoder: WatchDecoder<T> | ProtobufWatchDecoder<T>;
  private closed = false;
  /** The response ended normally: its socket may already serve another request, so never destroy it. */
  private ended = false;
  private lastActivity: number;
  private idleTimer: TimerHandle | undefined;

  /**
   * @param contentType the answer's Content-Type, which says how its events are encoded.
   * @param release ends the connection under the watch; `ended`: the answer ended normally.
   * @param idleTimeoutMs End the watch with a {@link WatchIdleTimeoutError} after this long without
   *   a byte; `0` (or a non-finite value) disables the guard.
   */
  constructor(
    contentType: string | undefined,
    private readonly release: (ended: boolean) => void,
    private readonly callbacks: WatchCallbacks<T>,
    private readonly idleTimeoutMs: number,
    private readonly clock: Clock,
  ) {
    const omitManagedFields = callbacks.omitManagedFields === true;
    // The server picks the encoding from what was accepted; its answer says which it picked.
    this.decoder = isProtobuf(contentType)
      ? new ProtobufWatchDecoder<T>({ omitManagedFields })
      : new WatchDecoder<T>({ omitManagedFields });
    this.lastActivity = clock.now();
    if (idleTimeoutMs > 0 && Number.isFinite(idleTimeoutMs)) this.armIdleTimer(idleTimeoutMs);
  }

  /** Ends the watch; `onClose` is then called once with no error. Idempotent. */
  stop(): void {
    this.close(undefined);
  }

  /** The next bytes of the body. */
  receive(chunk: Buffer): void {
    if (this.closed) return;
    this.lastActivity = this.clock.now();
    try {
      for (const event of this.decoder.push(chunk)) {
        if (this.closed) return;
        this.callbacks.onEvent(event);
      }
    } catch (err) {
      this.close(toError(err));
    }
  }

  /** The body ended normally. */
  finish(): void {
    this.ended = true;
    if (this.closed) return;
    try {
      for (const event of this.decoder.end()) {
        if (this.closed) return;
        this.callbacks.onEvent(event);
      }
    } catch (err) {
      this.close(toError(err));
      return;
    }
    this.close(undefined);
  }

  private armIdleTimer(ms: number): void {
    this.idleTimer = this.clock.setTimeout(() => this.checkIdle(), ms);
  }

  // One timer re-armed for the remaining time, rather than a reset on every chunk: a busy stream
  // then costs nothing extra.
  private checkIdle(): void {
    this.idleTimer = undefined;
    if (this.closed) return;
    const idle = this.clock.now() - this.lastActivity;
    if (idle >= this.idleTimeoutMs) {
      this.close(new WatchIdleTimeoutError(this.idleTimeoutMs));
    } else {
      this.armIdleTimer(this.idleTimeoutMs - idle);
    }
  }

  /** The stream failed (network error, connection cut). */
  fail(error: Error): void {
    this.close(error);
  }

  private close(error: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    if (this.idleTimer !== undefined) this.clock.clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.release(this.ended);
    this.callbacks.onClose(error);
  }
}

/** Feeds a node:http answer to `watch`; `request` is destroyed unless the answer ended normally. */
export function watchOverNode<T extends KubeObject>(
  request: ClientRequest,
  response: IncomingMessage,
  start: (release: (ended: boolean) => void) => HttpWatch<T>,
): HttpWatch<T> {
  // An answer that ended normally: its socket may already serve another request, so never destroy it.
  const watch = start((ended) => {
    if (!ended) request.destroy();
  });
  response.on('data', (chunk: Buffer) => watch.receive(chunk));
  response.on('end', () => watch.finish());
  response.on('error', (err) => watch.fail(err));
  response.on('close', () => {
    if (!response.complete) watch.fail(new Error('watch: connection closed before the stream ended'));
  });
  request.on('error', (err) => watch.fail(err));
  return watch;
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
