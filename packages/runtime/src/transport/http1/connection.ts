/**
 * One keep-alive HTTP/1.1 connection to the API server: one request at a time, its answer read
 * whole by a {@link ResponseParser}. What it knows about its own health (closed, reusable) the
 * pool reads to decide whether to keep it.
 */
import type { Socket } from 'node:net';
import { type Answer, ResponseParser } from './response-parser.js';

/** The connection failed before any byte of the answer came back on a reused connection. */
export class StaleConnectionError extends Error {
  override readonly name = 'StaleConnectionError';
}

/** A head of ASCII only (what requestHead lets through, less Latin-1 values). */
const ASCII = /^[\t\r\n -~]*$/;

interface Exchange {
  parser: ResponseParser;
  resolve: (answer: Answer) => void;
  reject: (err: Error) => void;
}

export class Connection {
  private exchange: Exchange | undefined;
  /** Answers served: a connection that served one is "reused" for the next. */
  private served = 0;
  private dead = false;
  /** Called once when the connection can no longer be used (closed, failed or destroyed). */
  onDead: (() => void) | undefined;

  constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (bytes: Buffer) => this.onData(bytes));
    socket.on('end', () => this.onEnd());
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('the connection closed mid-answer')));
  }

  /** Whether the connection may carry another request. */
  get usable(): boolean {
    return !this.dead;
  }

  /**
   * Writes `head` and `body` (one write, so one segment for a small request) and reads the answer
   * with `parser` (whose `onHead` and `sink` may take a streamed body as it arrives).
   * @throws StaleConnectionError when a reused connection ends before answering at all; whether
   *   the request reached the server is then unknown.
   */
  send(head: string, body: string | undefined, parser = new ResponseParser()): Promise<Answer> {
    if (this.dead) return Promise.reject(new StaleConnectionError('the connection is closed'));
    if (this.exchange) return Promise.reject(new Error('a request is already in flight on this connection'));
    return new Promise<Answer>((resolve, reject) => {
      this.exchange = { parser, resolve, reject };
      this.socket.ref();
      if (ASCII.test(head)) this.socket.write(body === undefined ? head : head + body);
      else {
        // Header values may be Latin-1 (as node:http sends them); the body is UTF-8.
        this.socket.cork();
        this.socket.write(head, 'latin1');
        if (body !== undefined) this.socket.write(body, 'utf8');
        this.socket.uncork();
      }
    });
  }

  /** Ends the connection; an exchange in flight fails with `err`. */
  destroy(err?: Error): void {
    this.fail(err ?? new Error('the connection was closed'), false);
  }

  /** Lets the process exit while the connection idles in the pool. */
  idle(): void {
    this.socket.unref();
  }

  private onData(bytes: Buffer): void {
    const exchange = this.exchange;
    if (!exchange) {
      this.fail(new Error('the server sent bytes nobody asked for'));
      return;
    }
    try {
      exchange.parser.push(bytes);
    } catch (err) {
      this.fail(err as Error);
      return;
    }
    if (exchange.parser.done) this.finish(exchange);
  }

  private onEnd(): void {
    const exchange = this.exchange;
    if (exchange) {
      try {
        exchange.parser.end();
        this.finish(exchange);
      } catch (err) {
        this.fail(err as Error);
        return;
      }
    }
    this.fail(new Error('the server closed the connection'));
  }

  private finish(exchange: Exchange): void {
    this.exchange = undefined;
    this.served++;
    const { parser } = exchange;
    if (parser.closes || parser.trailing) this.fail(new Error('the server asked to close the connection'));
    exchange.resolve(parser.answer());
  }

  /** `byPeer`: the connection broke (not our destroy), which on a reused one may mean it went stale. */
  private fail(err: Error, byPeer = true): void {
    const exchange = this.exchange;
    this.exchange = undefined;
    if (exchange) {
      const stale = byPeer && this.served > 0 && !exchange.parser.started;
      exchange.reject(stale ? new StaleConnectionError(err.message, { cause: err }) : err);
    }
    if (this.dead) return;
    this.dead = true;
    this.socket.destroy();
    this.onDead?.();
  }
}
