/** The options of the HTTP transport, what it reports per request, and its timeout error. */
import type { Clock } from '../clock.js';
import type { RetryAfterPolicy } from './retry-after.js';

/** One finished request, for `rest_client_requests_total{code,method,host}` and latency metrics. */
export interface RequestMetric {
  /** HTTP verb, upper case. */
  method: string;
  /** HTTP status code as text, or `<error>` when no answer came (network error, timeout). */
  code: string;
  /** `host:port` of the API server. */
  host: string;
  /** Time to the full answer; for a watch, time until the server accepted it. */
  durationMs: number;
}

/** Options of an {@link HttpTransport}. */
export interface HttpTransportOptions {
  /**
   * Deadline of a non-watch request, from sending to the last byte of the answer; also how long a
   * watch may take to be accepted. Default 60 s; 0 means no deadline.
   */
  requestTimeoutMs?: number;
  /**
   * Default client-side idle timeout of watches (see {@link WatchOptions.idleTimeoutMs}); 0 disables.
   * Default 5 min: ask for bookmarks, so that a healthy but quiet watch still shows signs of life.
   */
  watchIdleTimeoutMs?: number;
  /** Called once per request when it ends (for a watch: when it is accepted or refused). */
  onRequest?: (metric: RequestMetric) => void;
  /** The User-Agent header. */
  userAgent?: string;
  /** Timers of the deadlines; tests may pass a virtual clock. */
  clock?: Clock;
  /**
   * Ask for Kubernetes' protobuf encoding when reading built-in kinds (ConfigMaps, Pods, Nodes,
   * Deployments…), as client-go does: the server encodes it several times faster than JSON. The
   * objects are decoded into the same shape the JSON would give. Custom resources are always JSON,
   * and so is everything on a server newer than the runtime's schema (it may send fields the schema
   * lacks). Default true.
   */
  protobuf?: boolean;
  /**
   * Told each distinct text of the server's `Warning` headers once (a deprecated API, an unknown
   * field dropped): the manager logs them. Memory is bounded (1024 texts, then it starts over).
   */
  onWarning?: (text: string) => void;
  /**
   * Retries of answers that say when to come back (429, or a 5xx, with `Retry-After`: the server
   * did not act on them), as client-go: after that delay, cut to `maxDelayMs`, at most
   * `maxRetries` times. Default 10 retries, 60 s at most each; `{ maxRetries: 0 }` turns them off.
   * Subresource POSTs (an eviction's 429 is a PodDisruptionBudget's refusal) and watches are not
   * retried here: the caller and the reflector's backoff decide.
   */
  retryAfter?: Partial<RetryAfterPolicy>;
}

/** A request got no complete answer within `requestTimeoutMs`. */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';
  constructor(method: string, path: string, timeoutMs: number) {
    super(`${method} ${path}: no answer within ${timeoutMs} ms`);
  }
}
