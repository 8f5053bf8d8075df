/**
 * One watch stream over HTTP, from the moment the server answered 200: decodes events as bytes
 * arrive, hands them to the callbacks in order, guards the stream with an idle timer, and reports its
 * end exactly once.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Clock, TimerHandle } from '../clock.js';
import { isProtobuf } from './protobuf/envelope.js';
import { ProtobufWatchDecoder } from './protobuf/watch-decoder.js';
import type { WatchCallbacks, WatchHandle } from './transport.js';
import type { KubeObject } from './types.js';
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
   * @param idleTimeoutMs End the watch with a {@link WatchIdleTimeoutError} after this long without
   *   a byte; `0` (or a non-finite value) disables the guard.
   */
  constructor(
    private readonly request: ClientRequest,
    response: IncomingMessage,
    private readonly callbacks: WatchCallbacks<T>,
    private readonly idleTimeoutMs: number,
    private readonly clock: Clock,
  ) {
    const omitManagedFields = callbacks.omitManagedFields === true;
    // The server picks the encoding from what was accepted; its answer says which it picked.
    this.decoder = isProtobuf(response.headers['content-type'])
      ? new ProtobufWatchDecoder<T>({ omitManagedFields })
      : new WatchDecoder<T>({ omitManagedFields });
    this.lastActivity = clock.now();
    response.on('data', (chunk: Buffer) => this.onData(chunk));
    response.on('end', () => this.onEnd());
    response.on('error', (err) => this.close(err));
    response.on('close', () => {
      if (!response.complete) this.close(new Error('watch: connection closed before the stream ended'));
    });
    request.on('error', (err) => this.close(err));
    if (idleTimeoutMs > 0 && Number.isFinite(idleTimeoutMs)) this.armIdleTimer(idleTimeoutMs);
  }

  /** Ends the watch; `onClose` is then called once with no error. Idempotent. */
  stop(): void {
    this.close(undefined);
  }

  private onData(chunk: Buffer): void {
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

  private onEnd(): void {
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

  private close(error: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    if (this.idleTimer !== undefined) this.clock.clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (!this.ended) this.request.destroy();
    this.callbacks.onClose(error);
  }
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
