/**
 * The {@link ApiTransport} that speaks to a real kube-apiserver over HTTP(S).
 *
 * Credentials come from a {@link ClusterAccess}: the runtime's own {@link KubeConfig} (which
 * imports client-node only for exec plugins, auth providers and proxies) or client-node's. Requests
 * go through the runtime's own keep-alive HTTP/1.1 connections (`http1/`), which cost a fraction of
 * node:http's CPU per request: answers read whole, except a watch's, decoded as its bytes arrive
 * on a connection of its own (no whole-request timeout; an idle timer guards it). Through a proxy,
 * everything goes through node:http and the proxy's agent.
 */
import http from 'node:http';
import https from 'node:https';
import { type Clock, realClock, sleep, type TimerHandle } from '../clock.js';
import type { ClusterAccess } from '../kubeconfig/kubeconfig-types.js';
import { WarningOnce } from './api-warnings.js';
import { ConnectionPools } from './connection-pools.js';
import { type HttpTransportOptions, RequestTimeoutError } from './http-transport-options.js';
import { Cancellation } from './http1/cancellation.js';
import type { PoolRequest } from './http1/connection-pool.js';
import type { Answer } from './http1/response-parser.js';
import { exchangeThroughNode } from './node-exchange.js';

export {
  type HttpTransportOptions,
  type RequestMetric,
  RequestTimeoutError,
} from './http-transport-options.js';

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
} from '../api/types.js';
import { decodeBody } from './protobuf/response-body.js';
import { ProtobufDecodeError } from './protobuf/wire.js';
import { JSON_ONLY, WireChoice } from './protobuf/wire-choice.js';
import { errorFromAnswer, parseRetryAfter } from './response-error.js';
import {
  deleteBody,
  listQuery,
  patchContentType,
  queryString,
  resourcePath,
  watchQuery,
  writeQuery,
} from './rest-request.js';
import { defaultRetryAfterPolicy, type RetryAfterPolicy, retryDelayMs } from './retry-after.js';
import type { ApiTransport, WatchCallbacks, WatchHandle } from './transport.js';
import { openWatchOverNode, openWatchOverPool, type WatchStart } from './watch-request.js';

const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
const DEFAULT_WATCH_IDLE_TIMEOUT_MS = 5 * 60_000;

interface Body {
  text: string;
  contentType: string;
}

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
  /** A proxy needs client-node's proxy agent, on node:http: the runtime's connections cannot go there. */
  private readonly proxied: boolean;
  private readonly requestTimeoutMs: number;
  private readonly watchIdleTimeoutMs: number;
  private readonly clock: Clock;
  private readonly userAgent: string;
  private readonly pools: ConnectionPools;
  private readonly wire: WireChoice;
  private readonly warnings: WarningOnce | undefined;
  private readonly retryAfter: RetryAfterPolicy;

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
    this.pools = new ConnectionPools(this.client === https);
    this.proxied = Boolean(cluster.proxyUrl);
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.watchIdleTimeoutMs = options.watchIdleTimeoutMs ?? DEFAULT_WATCH_IDLE_TIMEOUT_MS;
    this.clock = options.clock ?? realClock;
    this.userAgent = options.userAgent ?? `capstan/0.1 (node ${process.version})`;
    this.warnings = options.onWarning ? new WarningOnce(options.onWarning) : undefined;
    this.retryAfter = { ...defaultRetryAfterPolicy, ...options.retryAfter };
    this.wire = new WireChoice(options.protobuf ?? true, () => this.exchange('GET', '/version'), this.clock);
  }

  /** `host:port` of the API server. */
  get host(): string {
    return this.server.host;
  }

  async get<T extends KubeObject>(type: ResourceType<T>, key: ObjectKey, subresource?: string): Promise<T> {
    const path = resourcePath(type, { ...key, subresource });
    return (await this.read(type, path, subresource === undefined)) as T;
  }

  async list<T extends KubeObject>(type: ResourceType<T>, options: ListOptions = {}): Promise<ListResult<T>> {
    const path = resourcePath(type, { namespace: options.namespace }) + queryString(listQuery(options));
    const list = (await this.read(type, path, true, true)) as {
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
    const requestOptions = await this.requestOptions('GET', path, undefined, await this.wire.accept(type));
    const started = this.clock.now();
    const deadline = this.deadline('GET', path);
    const start: WatchStart<T> = {
      callbacks: this.wire.watching(type, callbacks),
      idleTimeoutMs,
      clock: this.clock,
      cancellation: deadline?.cancellation,
      answered: (code, warning) => {
        if (deadline) this.clock.clearTimeout(deadline.timer);
        this.warnings?.header(warning);
        this.report('GET', code, started);
      },
    };
    if (this.proxied) return openWatchOverNode(this.client, requestOptions, start);
    const pool = this.pools.for(requestOptions, this.server);
    return openWatchOverPool(pool, poolRequest(requestOptions), start);
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
    return (await this.exchange('POST', path, json(object), await this.writeAccept(type, options))) as T;
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
    return (await this.exchange('PUT', path, json(object), await this.writeAccept(type, options))) as T;
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
    return (await this.exchange('PATCH', path, payload, await this.writeAccept(type, options))) as T;
  }

  async delete<T extends KubeObject>(
    type: ResourceType<T>,
    key: ObjectKey,
    options: DeleteOptions = {},
  ): Promise<unknown> {
    return this.exchange(
      'DELETE',
      resourcePath(type, key),
      json(deleteBody(options)),
      await this.wire.accept(type),
    );
  }

  async createSubresource(
    type: ResourceType,
    key: ObjectKey,
    subresource: string,
    body: unknown,
  ): Promise<unknown> {
    // Not retried on Retry-After: an eviction's 429 is a PodDisruptionBudget's refusal, the caller's.
    return this.exchange('POST', resourcePath(type, { ...key, subresource }), json(body), JSON_ONLY, false);
  }

  /** Closes pooled connections. Requests and watches still running are not affected. */
  close(): void {
    this.pools.close();
  }

  /**
   * A GET of objects of `type` (`asType`: the answer is of that kind, not a subresource's; `list`:
   * a list of them). If
   * its protobuf cannot be read, the kind goes to JSON and the read is asked again, once.
   */
  private async read(type: ResourceType, path: string, asType: boolean, list = false): Promise<unknown> {
    if (!asType) return this.exchange('GET', path);
    const accept = await this.wire.accept(type, list);
    try {
      return await this.exchange('GET', path, undefined, accept);
    } catch (err) {
      if (accept === JSON_ONLY || !(err instanceof Error && err.cause instanceof ProtobufDecodeError))
        throw err;
      this.wire.refuse(type);
      return this.exchange('GET', path);
    }
  }

  /** A write answers with the object, or with the subresource's own kind (a Scale): JSON then. */
  private writeAccept(type: ResourceType, options: { subresource?: string }): Promise<string> {
    return options.subresource === undefined || options.subresource === 'status'
      ? this.wire.accept(type)
      : Promise.resolve(JSON_ONLY);
  }

  /**
   * One non-watch request: sends `body`, reads the whole answer, maps a non-2xx to an ApiError.
   * An answer that says when to come back is asked again then, if `retry` (see {@link retryDelayMs}).
   */
  private async exchange(
    method: string,
    path: string,
    body?: Body,
    accept = JSON_ONLY,
    retry = true,
  ): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const requestOptions = await this.requestOptions(method, path, body, accept);
      const answer = await this.send(method, path, requestOptions, body);
      this.warnings?.header(answer.headers.warning);
      if (answer.status >= 200 && answer.status < 300) return this.decode(method, path, answer);
      const retryAfter = answer.headers['retry-after'];
      const delay =
        retryAfter === undefined || !retry
          ? undefined
          : retryDelayMs(
              answer.status,
              parseRetryAfter(retryAfter, this.clock.now()),
              attempt,
              this.retryAfter,
            );
      if (delay === undefined) throw errorFromAnswer(answer, this.clock.now());
      await sleep(this.clock, delay);
    }
  }

  /** Sends one request and reads its whole answer, within the request deadline. */
  private async send(
    method: string,
    path: string,
    requestOptions: https.RequestOptions,
    body: Body | undefined,
  ): Promise<Answer> {
    const started = this.clock.now();
    const deadline = this.deadline(method, path);
    let code = '<error>';
    try {
      const answer = this.proxied
        ? await exchangeThroughNode(this.client, requestOptions, body?.text, deadline?.cancellation)
        : await this.pools
            .for(requestOptions, this.server)
            .request(poolRequest(requestOptions, body?.text), deadline?.cancellation);
      code = String(answer.status);
      return answer;
    } finally {
      if (deadline) this.clock.clearTimeout(deadline.timer);
      this.report(method, code, started);
    }
  }

  private decode(method: string, path: string, answer: Answer): unknown {
    try {
      return decodeBody(answer.body, answer.headers['content-type']);
    } catch (err) {
      throw new Error(`${method} ${path}: the answer cannot be read: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  /** Request options with the kubeconfig's credentials applied (a proxy's agent among them). */
  private async requestOptions(
    method: string,
    path: string,
    body: Body | undefined,
    accept: string,
  ): Promise<https.RequestOptions> {
    const headers: http.OutgoingHttpHeaders = { Accept: accept, 'User-Agent': this.userAgent };
    if (body) {
      headers['Content-Type'] = body.contentType;
      // The runtime's connections write their own; node:http needs it here.
      if (this.proxied) headers['Content-Length'] = Buffer.byteLength(body.text);
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
    return options;
  }

  /** A cancellation with a RequestTimeoutError once `requestTimeoutMs` have passed. */
  private deadline(
    method: string,
    path: string,
  ): { cancellation: Cancellation; timer: TimerHandle } | undefined {
    if (!(this.requestTimeoutMs > 0)) return undefined;
    const cancellation = new Cancellation();
    const timer = this.clock.setTimeout(
      () => cancellation.cancel(new RequestTimeoutError(method, path, this.requestTimeoutMs)),
      this.requestTimeoutMs,
    );
    return { cancellation, timer };
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

/** The request the runtime's connections send for `options` (the kubeconfig's headers on them). */
function poolRequest(options: https.RequestOptions, body?: string): PoolRequest {
  return {
    method: options.method as string,
    path: options.path as string,
    headers: options.headers as http.OutgoingHttpHeaders,
    body,
  };
}

function json(value: unknown): Body {
  return { text: JSON.stringify(value), contentType: 'application/json' };
}
