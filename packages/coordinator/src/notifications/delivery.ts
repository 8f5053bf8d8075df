/**
 * Delivery of webhook bodies, apart from coordination: {@link WebhookDelivery.enqueue} returns at
 * once; each endpoint has its own bounded queue and one sender, which POSTs in order with a
 * timeout on each attempt and retries on the runtime's backoff curve. A full queue drops the new
 * body (counted, logged once until the queue drains), so a dead or hanging endpoint costs memory
 * bounded by the queue and never a round's time.
 */
import { type BackoffCurve, backoffDelay, type Logger } from '@capstan/runtime';
import { sendRequest, type TlsTrust } from '@capstan/runtime/http';

/** One POST: resolves with the HTTP status, rejects when no answer came. */
export type Poster = (
  url: string,
  body: string,
  timeoutMs: number,
  trust: TlsTrust,
  signal: AbortSignal,
) => Promise<number>;

/** How bodies are delivered. */
export interface DeliveryOptions {
  /** Bodies waiting per endpoint; more are dropped. Default 100. */
  queueLimit?: number;
  /** Each POST's deadline; default 10 s. */
  timeoutMs?: number;
  /** Attempts per body before it is given up; default 5. */
  maxAttempts?: number;
  /** The wait between attempts; default 1 s doubling to 60 s. */
  backoff?: BackoffCurve;
  /** CA bundle to verify HTTPS endpoints with (default the system roots). */
  trust?: TlsTrust;
  /** Counts what happened to each body: `sent`, `failed` (given up), `dropped` (queue full). */
  count?: (result: 'sent' | 'failed' | 'dropped') => void;
  logger?: Logger;
  /** The POST (default: the runtime's `sendRequest`). Tests pass a fake. */
  post?: Poster;
  /** Waits `ms` (default a timer); tests shorten it. */
  sleep?: (ms: number) => Promise<void>;
}

const realPost: Poster = async (url, body, timeoutMs, trust, signal) =>
  (
    await sendRequest(new URL(url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      timeoutMs,
      trust,
      signal,
    })
  ).status;

/** An endpoint's host only: webhook paths often carry a secret token (Slack's do). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(unparsable URL)';
  }
}

interface EndpointQueue {
  bodies: string[];
  sending: boolean;
  /** Whether a drop was logged since the queue last drained. */
  dropLogged: boolean;
}

/** Per-endpoint queues and their senders. */
export class WebhookDelivery {
  private readonly queues = new Map<string, EndpointQueue>();
  private readonly idle = new Set<() => void>();
  private stopped = false;
  private readonly aborted = new AbortController();

  constructor(private readonly options: DeliveryOptions = {}) {}

  /** Queues `body` for `url`; never waits. */
  enqueue(url: string, body: string): void {
    if (this.stopped) return;
    let q = this.queues.get(url);
    if (!q) {
      q = { bodies: [], sending: false, dropLogged: false };
      this.queues.set(url, q);
    }
    if (q.bodies.length >= (this.options.queueLimit ?? 100)) {
      this.options.count?.('dropped');
      if (!q.dropLogged) {
        q.dropLogged = true;
        this.options.logger?.warn(
          { endpoint: hostOf(url) },
          'notification queue full: dropping notifications for this endpoint',
        );
      }
      return;
    }
    q.bodies.push(body);
    if (!q.sending) void this.drain(url, q);
  }

  /** Bodies waiting or in flight, over all endpoints. */
  get pending(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.bodies.length;
    return n;
  }

  /** Resolves once every queue is empty (tests, shutdown). */
  whenIdle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.add(resolve));
  }

  /** Stops taking bodies and abandons those in flight (the coordinator is shutting down). */
  stop(): void {
    this.stopped = true;
    this.aborted.abort(new Error('notification delivery stopped'));
  }

  private async drain(url: string, q: EndpointQueue): Promise<void> {
    q.sending = true;
    while (q.bodies.length > 0 && !this.stopped) {
      await this.deliver(url, q.bodies[0] as string);
      q.bodies.shift();
    }
    q.sending = false;
    q.dropLogged = false;
    if (this.pending === 0) for (const resolve of this.idle) resolve();
    if (this.pending === 0) this.idle.clear();
  }

  /** Tries one body until it is accepted (2xx) or its attempts are spent. */
  private async deliver(url: string, body: string): Promise<void> {
    const o = this.options;
    const attempts = o.maxAttempts ?? 5;
    const curve = o.backoff ?? { initialMs: 1000, maxMs: 60_000 };
    // An unref'd timer: a retry pending at shutdown does not keep the process alive.
    const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref()));
    let why = '';
    for (let attempt = 0; attempt < attempts && !this.stopped; attempt++) {
      if (attempt > 0) await sleep(backoffDelay(attempt - 1, curve));
      try {
        const post = o.post ?? realPost;
        const status = await post(url, body, o.timeoutMs ?? 10_000, o.trust ?? {}, this.aborted.signal);
        if (status >= 200 && status < 300) {
          o.count?.('sent');
          return;
        }
        why = `HTTP ${status}`;
      } catch (err) {
        why = err instanceof Error ? err.message : String(err);
      }
    }
    o.count?.('failed');
    o.logger?.warn({ endpoint: hostOf(url), attempts, error: why }, 'notification not delivered; given up');
  }
}
