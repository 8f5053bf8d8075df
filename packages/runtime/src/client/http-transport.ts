/**
 * The {@link ApiTransport} that speaks to a real kube-apiserver over HTTP(S).
 *
 * Credentials come from a {@link ClusterAccess}: the runtime's own {@link KubeConfig} (which
 * imports client-node only for exec plugins, auth providers and proxies) or client-node's. The
 * requests themselves go through `node:https` with one keep-alive agent, so that watches have no
 * whole-request timeout and lists stream into one buffer.
 */
import http from 'node:http';
import https from 'node:https';
import { type Clock, realClock, type TimerHandle } from '../clock.js';
import { AgentPool } from './agent-pool.js';
import { HttpWatch } from './http-watch.js';
import type { ClusterAccess } from './kubeconfig-types.js';
import { PROTOBUF_MEDIA_TYPE } from './protobuf/envelope.js';
import { decodeBody, errorBodyText } from './protobuf/response-body.js';
import { hasProtobuf } from './protobuf/schema.js';
import { errorFromResponse } from './response-error.js';
import {
  deleteBody,
  listQuery,
  patchContentType,
  queryString,
  resourcePath,
  watchQuery,
  writeQuery,
} from './rest-request.js';
import type { ApiTransport, WatchCallbacks, WatchHandle } from './transport.js';
import {
  apiVersionOf,
  type DeleteOptions,
  type KubeObject,
  type ListOptions,
  type ListResult,
  type ObjectKey,
  type PatchOptions,
  type PatchType,
  type ResourceType,
  type WatchOptions,
  type WriteOptions,
} from './types.js';

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
   * objects are decoded into the same shape the JSON would give. Custom resources are always JSON.
   * Default true.
   */
  protobuf?: boolean;
}

/** A request got no complete answer within `requestTimeoutMs`. */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';
  constructor(method: string, path: string, timeoutMs: number) {
    super(`${method} ${path}: no answer within ${timeoutMs} ms`);
  }
}

const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
const DEFAULT_WATCH_IDLE_TIMEOUT_MS = 5 * 60_000;

interface Body {
  text: string;
  contentType: string;
}

const JSON_ONLY = 'application/json';
const PROTOBUF_OR_JSON = `${PROTOBUF_MEDIA_TYPE}, application/json`;

/**
 * Talks to the API server of a kubeconfig's current context.
 *
 * @example
 * const transport = new HttpTransport(loadKubeConfig(), { onRequest: (m) => requests.inc({ ...m }) });
 * const client = new Client(transport);
 */
export class HttpTransport implements ApiTransport {
  private readonly server: URL;
  private readonly basePath: string;
  private readonly client: typeof http | typeof https;
  /** A proxy needs client-node's proxy agent; then we cannot pool connections ourselves. */
  private readonly proxied: boolean;
  private readonly requestTimeoutMs: number;
  private readonly watchIdleTimeoutMs: number;
  private readonly clock: Clock;
  private readonly userAgent: string;
  private readonly agents: AgentPool;
  private readonly protobuf: boolean;

  /**
   * @param kubeConfig the runtime's {@link KubeConfig}, or client-node's (anything with the
   *   current cluster and a way to put credentials on a request).
   * @throws Error when the kubeconfig has no current cluster.
   */
  constructor(
    private readonly kubeConfig: ClusterAccess,
    private readonly options: HttpTransportOptions = {},
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig: no current cluster');
    this.server = new URL(cluster.server);
    this.basePath = this.server.pathname.replace(/\/+$/, '');
    this.client = this.server.protocol === 'http:' ? http : https;
    this.agents = new AgentPool(this.client === https);
    this.proxied = Boolean(cluster.proxyUrl);
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.watchIdleTimeoutMs = options.watchIdleTimeoutMs ?? DEFAULT_WATCH_IDLE_TIMEOUT_MS;
    this.clock = options.clock ?? realClock;
    this.userAgent = options.userAgent ?? `capstan/0.1 (node ${process.version})`;
    this.protobuf = options.protobuf ?? true;
  }

  /** `host:port` of the API server. */
  get host(): string {
    return this.server.host;
  }

  async get<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey, subresource?: string): Promise<T> {
    const accept = subresource === undefined ? this.accept(type) : JSON_ONLY;
    return (await this.exchange('GET', resourcePath(type, { ...key, subresource }), undefined, accept)) as T;
  }

  async list<T extends KubeObject>(type: ResourceType<T>, options: ListOptions = {}): Promise<ListResult<T>> {
    const path = resourcePath(type, { namespace: options.namespace }) + queryString(listQuery(options));
    const list = (await this.exchange('GET', path, undefined, this.accept(type))) as {
      items?: T[] | null;
      metadata?: { resourceVersion?: string; continue?: string };
    };
    const items = list.items ?? [];
    // The server leaves apiVersion and kind out of list items; fill them so that every object the
    // runtime holds looks the same whether it came from a get, a list or a watch.
    const apiVersion = apiVersionOf(type);
    for (const item of items) {
      item.apiVersion ??= apiVersion;
      item.kind ??= type.kind;
    }
    const result: ListResult<T> = { items, resourceVersion: list.metadata?.resourceVersion ?? '' };
    if (list.metadata?.continue) result.continue = list.metadata.continue;
    return result;
  }

  async watch<T extends KubeObject>(
    type: ResourceType<T>,
    options: WatchOptions,
    callbacks: WatchCallbacks<T>,
  ): Promise<WatchHandle> {
    const path = resourcePath(type, { namespace: options.namespace }) + queryString(watchQuery(options));
    const idleTimeoutMs = options.idleTimeoutMs ?? this.watchIdleTimeoutMs;
    const requestOptions = await this.requestOptions('GET', path, undefined, this.accept(type));
    const started = this.clock.now();
    return new Promise<WatchHandle>((resolve, reject) => {
      let accepted = false;
      const request = this.client.request(requestOptions);
      // Only the wait for the answer is bounded: a watch stream itself has no deadline (client-node
      // aborts watches after 30 s, #3020); the idle timer guards it instead.
      const timer = this.deadline(request, 'GET', path);
      request.on('response', (response) => {
        this.clearDeadline(timer);
        const code = response.statusCode ?? 0;
        this.report('GET', String(code), started);
        if (code >= 200 && code < 300) {
          accepted = true;
          resolve(new HttpWatch(request, response, callbacks, idleTimeoutMs, this.clock));
          return;
        }
        readAll(response).then(
          (body) =>
            reject(
              errorFromResponse(
                code,
                errorBodyText(body, response.headers['content-type']),
                headerValue(response.headers['retry-after']),
              ),
            ),
          reject,
        );
      });
      request.on('error', (err) => {
        if (accepted) return; // HttpWatch reports it through onClose.
        this.clearDeadline(timer);
        this.report('GET', '<error>', started);
        reject(err);
      });
      request.end();
    });
  }

  async create<T extends KubeObject>(
    type: ResourceType<T>,
    object: T,
    options: WriteOptions = {},
  ): Promise<T> {
    const path =
      resourcePath(type, {
        namespace: object.metadata.namespace,
        ...(options.subresource
          ? { name: object.metadata.name ?? '', subresource: options.subresource }
          : {}),
      }) + queryString(writeQuery({ fieldManager: options.fieldManager, dryRun: options.dryRun }));
    return (await this.exchange('POST', path, json(object), this.writeAccept(type, options))) as T;
  }

  async update<T extends KubeObject>(
    type: ResourceType<T>,
    object: T,
    options: WriteOptions = {},
  ): Promise<T> {
    const path =
      resourcePath(type, {
        namespace: object.metadata.namespace,
        name: object.metadata.name ?? '',
        subresource: options.subresource,
      }) + queryString(writeQuery({ fieldManager: options.fieldManager, dryRun: options.dryRun }));
    return (await this.exchange('PUT', path, json(object), this.writeAccept(type, options))) as T;
  }

  async patch<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    patchType: PatchType,
    body: unknown,
    options: PatchOptions = {},
  ): Promise<T> {
    const query = writeQuery({
      fieldManager: options.fieldManager,
      dryRun: options.dryRun,
      // The server refuses `force` on anything but server-side apply.
      force: patchType === 'apply' ? options.force : undefined,
    });
    const path = resourcePath(type, { ...key, subresource: options.subresource }) + queryString(query);
    const payload = { text: JSON.stringify(body), contentType: patchContentType(patchType) };
    return (await this.exchange('PATCH', path, payload, this.writeAccept(type, options))) as T;
  }

  async delete<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    options: DeleteOptions = {},
  ): Promise<unknown> {
    return this.exchange('DELETE', resourcePath(type, key), json(deleteBody(options)), this.accept(type));
  }

  async createSubresource(
    type: ResourceType,
    key: ObjectKey,
    subresource: string,
    body: unknown,
  ): Promise<unknown> {
    return this.exchange('POST', resourcePath(type, { ...key, subresource }), json(body));
  }

  /** Closes pooled connections. Requests and watches still running are not affected. */
  close(): void {
    this.agents.close();
  }

  /** The Accept header of a request about objects of `type`. */
  private accept(type: ResourceType): string {
    return this.protobuf && hasProtobuf(apiVersionOf(type), type.kind) ? PROTOBUF_OR_JSON : JSON_ONLY;
  }

  /** A write answers with the object, or with the subresource's own kind (a Scale): JSON then. */
  private writeAccept(type: ResourceType, options: { subresource?: string }): string {
    return options.subresource === undefined || options.subresource === 'status'
      ? this.accept(type)
      : JSON_ONLY;
  }

  /** One non-watch request: sends `body`, reads the whole answer, maps a non-2xx to an ApiError. */
  private async exchange(method: string, path: string, body?: Body, accept = JSON_ONLY): Promise<unknown> {
    const requestOptions = await this.requestOptions(method, path, body, accept);
    const started = this.clock.now();
    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      let code = '<error>';
      const settle = (err: Error | undefined, value?: unknown) => {
        if (settled) return;
        settled = true;
        this.clearDeadline(timer);
        this.report(method, code, started);
        if (err) reject(err);
        else resolve(value);
      };
      const request = this.client.request(requestOptions, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', (err) => settle(err));
        response.on('close', () => {
          if (!response.complete) settle(new Error(`${method} ${path}: connection closed mid-answer`));
        });
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          code = String(status);
          const bytes = Buffer.concat(chunks);
          const contentType = response.headers['content-type'];
          if (status < 200 || status >= 300) {
            const text = errorBodyText(bytes, contentType);
            settle(
              errorFromResponse(status, text, headerValue(response.headers['retry-after']), this.clock.now()),
            );
            return;
          }
          try {
            settle(undefined, decodeBody(bytes, contentType));
          } catch (err) {
            settle(
              new Error(`${method} ${path}: the answer cannot be read: ${(err as Error).message}`, {
                cause: err,
              }),
            );
          }
        });
      });
      const timer = this.deadline(request, method, path);
      request.on('error', (err) => settle(err));
      request.end(body?.text);
    });
  }

  /** Request options with the kubeconfig's credentials applied, on the pooled agent. */
  private async requestOptions(
    method: string,
    path: string,
    body: Body | undefined,
    accept: string,
  ): Promise<https.RequestOptions> {
    const headers: http.OutgoingHttpHeaders = { Accept: accept, 'User-Agent': this.userAgent };
    if (body) {
      headers['Content-Type'] = body.contentType;
      headers['Content-Length'] = Buffer.byteLength(body.text);
    }
    const options: https.RequestOptions = {
      method,
      protocol: this.server.protocol,
      // URL keeps IPv6 literals in brackets; http.request wants them bare.
      hostname: this.server.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: this.server.port || undefined,
      path: this.basePath + path,
      headers,
    };
    // Called per request, not once: tokens from exec plugins and token files expire and rotate.
    await this.kubeConfig.applyToHTTPSOptions(options);
    if (!this.proxied) options.agent = this.agents.agentFor(options);
    return options;
  }

  /** Destroys `request` with a RequestTimeoutError once `requestTimeoutMs` have passed. */
  private deadline(request: http.ClientRequest, method: string, path: string): TimerHandle | undefined {
    if (!(this.requestTimeoutMs > 0)) return undefined;
    return this.clock.setTimeout(
      () => request.destroy(new RequestTimeoutError(method, path, this.requestTimeoutMs)),
      this.requestTimeoutMs,
    );
  }

  private clearDeadline(timer: TimerHandle | undefined): void {
    if (timer !== undefined) this.clock.clearTimeout(timer);
  }

  private report(method: string, code: string, started: number): void {
    this.options.onRequest?.({
      method,
      code,
      host: this.server.host,
      durationMs: this.clock.now() - started,
    });
  }
}

function json(value: unknown): Body {
  return { text: JSON.stringify(value), contentType: 'application/json' };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function readAll(stream: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}
