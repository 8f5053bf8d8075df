/**
 * One HTTP(S) request to an API that is not Kubernetes' (a cloud's REST API, a simulator of one),
 * answered whole: TLS trusted through a CA bundle, connections kept alive by an agent the caller
 * keeps, a deadline on a {@link Clock}, cancellation by an AbortSignal, the body read as text.
 *
 * It neither retries nor maps statuses: what a 401 or a 503 means (log in again, back off) is the
 * caller's API knowledge, so any status is an answer and only a missing answer rejects.
 */
import http from 'node:http';
import https from 'node:https';
import { type Clock, realClock, type TimerHandle } from '../clock.js';
import { RequestTimeoutError } from '../transport/http-transport.js';

/** How a server's certificate is checked. */
export interface TlsTrust {
  /** PEM CA bundle to verify the server with, instead of the system roots. */
  caPem?: string;
  /** Skip verification altogether. Only ever when a user asked for it. */
  insecure?: boolean;
}

/**
 * A keep-alive agent for `url`'s scheme: plain for `http:`, verifying with `trust` for `https:`.
 * Keep one per server and pass it to every {@link sendRequest}; `destroy()` it to close idle
 * connections.
 */
export function keepAliveAgent(url: URL, trust: TlsTrust = {}): http.Agent {
  if (url.protocol === 'http:') return new http.Agent({ keepAlive: true });
  return new https.Agent({
    keepAlive: true,
    ...(trust.caPem ? { ca: trust.caPem } : {}),
    rejectUnauthorized: trust.insecure !== true,
  });
}

/** What to send, and how long to wait. */
export interface HttpRequest {
  /** HTTP verb, upper case. */
  method: string;
  headers?: Readonly<Record<string, string>>;
  /** Sent as UTF-8 with its Content-Length. */
  body?: string;
  /** The connection pool to use (see {@link keepAliveAgent}); without one, Node's global agent. */
  agent?: http.Agent;
  /** Trust for a request without `agent` (an agent carries its own). */
  trust?: TlsTrust;
  /** From sending to the last byte of the answer; 0 or absent: no deadline. */
  timeoutMs?: number;
  /** Aborting destroys the request; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Timers of the deadline (default the wall clock). */
  clock?: Clock;
}

/** A whole answer, whatever its status. */
export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body decoded as UTF-8 (empty when there was none). */
  body: string;
}

/**
 * Sends one request and reads the whole answer.
 *
 * Resolves with any status the server answered. Rejects with a {@link RequestTimeoutError} past
 * `timeoutMs`, with the signal's reason when aborted, and with the network error otherwise
 * (refused, reset, TLS verification failed, closed mid-answer).
 *
 * @example
 * const agent = keepAliveAgent(base, { caPem });
 * const answer = await sendRequest(new URL('/api/versions', base), { method: 'GET', agent, timeoutMs: 60_000 });
 */
export function sendRequest(url: URL, request: HttpRequest): Promise<HttpAnswer> {
  const { method, body, signal } = request;
  const clock = request.clock ?? realClock;
  const tls = url.protocol === 'https:';
  return new Promise<HttpAnswer>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    let timer: TimerHandle | undefined;
    let settled = false;
    const settle = (err: unknown, answer?: HttpAnswer) => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (answer) resolve(answer);
      else reject(err);
    };
    const req = (tls ? https : http).request(
      url,
      {
        method,
        headers: {
          ...request.headers,
          ...(body !== undefined ? { 'Content-Length': Buffer.byteLength(body) } : {}),
        },
        ...(request.agent ? { agent: request.agent } : {}),
        ...(tls && !request.agent && request.trust?.caPem ? { ca: request.trust.caPem } : {}),
        ...(tls && !request.agent && request.trust?.insecure ? { rejectUnauthorized: false } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', settle);
        res.on('close', () => {
          if (!res.complete) settle(new Error(`${method} ${url.pathname}: connection closed mid-answer`));
        });
        res.on('end', () =>
          settle(undefined, {
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    // Destroying the request ends it with the given error, which `error` passes to settle.
    const onAbort = () => req.destroy(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const timeoutMs = request.timeoutMs ?? 0;
    if (timeoutMs > 0) {
      timer = clock.setTimeout(
        () => req.destroy(new RequestTimeoutError(method, url.pathname, timeoutMs)),
        timeoutMs,
      );
    }
    req.on('error', settle);
    req.end(body);
  });
}
