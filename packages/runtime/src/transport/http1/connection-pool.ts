/**
 * Keep-alive HTTP/1.1 connections to one API server with one set of TLS material, for the
 * transport's whole-answer requests (everything but watches).
 *
 * Why not `node:http`: each request through its agent builds a ClientRequest, an IncomingMessage,
 * two streams and a dozen listeners. On the bench's patch-per-reconcile controller that was about
 * 280 µs of CPU per request more than writing the request and reading the answer off the socket
 * (2.5 s against 1.1 s for 5,000 patches), CPU the API server on the same machine then lacks.
 *
 * Why not undici's `Pool` (measured by `BENCH_ROWS=undici`, http-client-probe.ts, 5 alternated
 * pairs of fresh processes): on the same requests it took about twice the CPU (10,000 ConfigMaps
 * read: 387 against 164 ms; 5,000 patches: 1.9 against 0.9 s), and loading it 0.3–0.5 s against
 * 35–56 ms, far outside the 5 % that would have replaced this client (see docs/ARCHITECTURE.md).
 */

import type { OutgoingHttpHeaders } from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import type { Cancellation } from './cancellation.js';
import { Connection, StaleConnectionError } from './connection.js';
import { type Answer, ResponseParser } from './response-parser.js';

/** Where to connect, and with which TLS material (`undefined`: plain HTTP). */
export interface Endpoint {
  host: string;
  port: number;
  /** The Host header: `host[:port]` as the server URL has it. */
  authority: string;
  tls: tls.ConnectionOptions | undefined;
}

/** One request: `path` is escaped already; `body` is sent with its Content-Length. */
export interface PoolRequest {
  method: string;
  path: string;
  headers: OutgoingHttpHeaders;
  body?: string | undefined;
}

/** Idle connections older than this are closed (servers and load balancers drop idle ones). */
export const IDLE_TIMEOUT_MS = 30_000;
const MAX_IDLE = 64;

/** How a pool's TLS connections began: a full handshake, or one that resumed a session. */
export interface TlsHandshakes {
  full: number;
  resumed: number;
}

export class ConnectionPool {
  /** Idle connections, the most recently used last: it is taken first, the oldest ages out. */
  private readonly idle: Connection[] = [];
  /**
   * The last TLS session (ticket) the server gave one of this pool's connections: the next new
   * connection offers it and resumes instead of a full handshake, as node:https's agent does. A pool
   * has one set of TLS material (see ConnectionPools), so a session is never offered with other
   * credentials.
   */
  private tlsSession: Buffer | undefined;
  private readonly handshakeCounts: TlsHandshakes = { full: 0, resumed: 0 };
  private readonly idleSince = new Map<Connection, number>();
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly idleTimeoutMs = IDLE_TIMEOUT_MS,
  ) {}

  /**
   * Sends `request` and reads its whole answer, on an idle connection when there is one. A GET or
   * HEAD whose reused connection turns out closed is sent again once on a new connection; other
   * methods are not, as the server may have acted on them (the caller's retry decides).
   * @param cancellation cancelling it ends the request with its reason.
   */
  async request(request: PoolRequest, cancellation?: Cancellation): Promise<Answer> {
    if (cancellation?.reason) throw cancellation.reason;
    const head = requestHead(request, this.endpoint.authority);
    const reused = this.takeIdle();
    if (reused) {
      try {
        return await this.exchange(reused, head, request, cancellation);
      } catch (err) {
        const replayable = request.method === 'GET' || request.method === 'HEAD';
        if (!(err instanceof StaleConnectionError && replayable)) throw err;
      }
    }
    return this.exchange(this.open(), head, request, cancellation);
  }

  /**
   * Sends a GET whose answer streams (a watch): `onHead` is called with the parser once the head is
   * in, and may set its `sink` to take the body piece by piece; the promise settles when the answer
   * ends. The connection is the stream's: it is closed at the end, never reused. Like
   * {@link request}, a stale reused connection is replaced once, before any byte came back.
   * @returns the answer (its body empty when streamed) and a way to end the stream at once.
   */
  stream(
    request: PoolRequest,
    onHead: (parser: ResponseParser) => void,
  ): { answer: Promise<Answer>; destroy(err?: Error): void } {
    const head = requestHead(request, this.endpoint.authority);
    let current: Connection | undefined;
    let destroyed: Error | undefined;
    const attempt = async (connection: Connection): Promise<Answer> => {
      current = connection;
      if (destroyed) connection.destroy(destroyed);
      const parser = new ResponseParser();
      parser.onHead = () => onHead(parser);
      try {
        return await connection.send(head, undefined, parser);
      } finally {
        connection.destroy();
      }
    };
    const reused = this.takeIdle();
    const answer = reused
      ? attempt(reused).catch((err: unknown) => {
          if (err instanceof StaleConnectionError && !destroyed) return attempt(this.open());
          throw err;
        })
      : attempt(this.open());
    return {
      answer,
      destroy: (err) => {
        destroyed ??= err ?? new Error('the stream was stopped');
        current?.destroy(destroyed);
      },
    };
  }

  /** Closes the idle connections; requests in flight finish, and their connections close after. */
  close(): void {
    this.closed = true;
    for (const connection of this.idle.splice(0)) connection.destroy();
    this.idleSince.clear();
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }

  private async exchange(
    connection: Connection,
    head: string,
    request: PoolRequest,
    cancellation: Cancellation | undefined,
  ): Promise<Answer> {
    if (cancellation?.reason) {
      connection.destroy();
      throw cancellation.reason;
    }
    cancellation?.listen((reason) => connection.destroy(reason));
    try {
      const answer = await connection.send(head, request.body, new ResponseParser(request.method === 'HEAD'));
      this.keep(connection);
      return answer;
    } finally {
      cancellation?.listen(undefined);
    }
  }

  /** How this pool's TLS connections began so far. */
  get handshakes(): Readonly<TlsHandshakes> {
    return this.handshakeCounts;
  }

  private open(): Connection {
    const { host, port } = this.endpoint;
    const options = this.endpoint.tls;
    if (!options) return new Connection(net.connect({ host, port }));
    const socket = tls.connect({
      ...options,
      host,
      port,
      // No SNI for an IP address, as node:https does.
      servername: options.servername ?? (net.isIP(host) ? undefined : host),
      ...(this.tlsSession ? { session: this.tlsSession } : {}),
    });
    socket.on('session', (session: Buffer) => {
      this.tlsSession = session;
    });
    let secured = false;
    socket.once('secureConnect', () => {
      secured = true;
      if (socket.isSessionReused()) this.handshakeCounts.resumed++;
      else this.handshakeCounts.full++;
    });
    // A handshake that failed must not pass its session on (Connection reports the error itself).
    socket.once('error', () => {
      if (!secured) this.tlsSession = undefined;
    });
    return new Connection(socket);
  }

  private takeIdle(): Connection | undefined {
    for (let connection = this.idle.pop(); connection; connection = this.idle.pop()) {
      this.idleSince.delete(connection);
      if (connection.usable) return connection;
    }
    return undefined;
  }

  /** Back to the idle list, or closed when it cannot be reused or the pool is closed or full. */
  private keep(connection: Connection): void {
    if (!connection.usable) return;
    if (this.closed || this.idle.length >= MAX_IDLE) {
      connection.destroy();
      return;
    }
    connection.idle();
    connection.onDead = () => this.forget(connection);
    this.idle.push(connection);
    this.idleSince.set(connection, Date.now());
    this.sweeper ??= setInterval(() => this.sweep(), Math.max(1000, this.idleTimeoutMs / 2)).unref();
  }

  private forget(connection: Connection): void {
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    this.idleSince.delete(connection);
  }

  private sweep(): void {
    const cutoff = Date.now() - this.idleTimeoutMs;
    for (const [connection, since] of this.idleSince) if (since <= cutoff) connection.destroy();
    if (this.idle.length === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Framing is the pool's: a caller's value for these is not sent. */
const FRAMING = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

/** The request line and headers. @throws TypeError on a path or header that would break the framing. */
export function requestHead(request: PoolRequest, authority: string): string {
  const { method, path, headers, body } = request;
  if (!TOKEN.test(method)) throw new TypeError(`invalid HTTP method ${JSON.stringify(method)}`);
  if (!/^\/[\x21-\x7e]*$/.test(path))
    throw new TypeError(`request path must be escaped: ${JSON.stringify(path)}`);
  let head = `${method} ${path} HTTP/1.1\r\nHost: ${authority}\r\n`;
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || FRAMING.has(name.toLowerCase())) continue;
    if (!TOKEN.test(name)) throw new TypeError(`invalid header name ${JSON.stringify(name)}`);
    for (const item of Array.isArray(value) ? value : [value]) {
      const text = String(item);
      if (!FIELD_VALUE.test(text)) throw new TypeError(`invalid value for header ${name}`);
      head += `${name}: ${text}\r\n`;
    }
  }
  if (body !== undefined) head += `Content-Length: ${Buffer.byteLength(body)}\r\n`;
  return `${head}\r\n`;
}
