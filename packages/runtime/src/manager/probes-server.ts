/**
 * The manager's HTTP endpoints: `/metrics` for Prometheus, `/healthz` and `/readyz` for the
 * kubelet's probes, and an opt-in `/debug/queues`. Metrics and probes listen where their bind
 * addresses say; equal addresses share one server, different ones get a server each.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log/logger.js';
import type { ServingCertSource } from '../webhook/cert-watcher.js';
import { type BindAddress, formatBindAddress, parseBindAddress } from './cli/bind-address.js';
import type { MetricsAccess } from './secure-metrics/metrics-access.js';

/**
 * A named health or readiness check: passes when it returns (or resolves), fails when it throws (or
 * rejects) or returns `false`.
 */
export type Check = () => unknown;

/** Returns the JSON body of `/debug/queues`; gets the request's query (e.g. `?key=ns/name`). */
export type DebugProvider = (query: URLSearchParams) => unknown;

/** What `/metrics` serves; a `MetricsRegistry` fits. */
export interface MetricsSource {
  readonly contentType: string;
  text(): Promise<string>;
}

/** `/metrics` over HTTPS with this certificate, each request allowed by `access` first. */
export interface SecureMetricsServing {
  certs: ServingCertSource;
  access: MetricsAccess;
}

/** Options of a {@link ProbesServer}. */
export interface ProbesServerOptions {
  /** Served on `/metrics`; without it the metrics server is not started. */
  metrics?: MetricsSource;
  /** Where `/metrics` listens: `:8080` (default), `127.0.0.1:8080`, `:0` (ephemeral) or `0` (disabled). */
  metricsBindAddress?: string;
  /** Serve `/metrics` securely; its address must then be its own (the probes stay plain HTTP). */
  metricsSecure?: SecureMetricsServing;
  /** Where `/healthz` and `/readyz` listen; default `:8081`, `0` disables. */
  healthProbeBindAddress?: string;
  /** Serve `/debug/queues`. Default false. */
  enableDebugEndpoint?: boolean;
  /**
   * Where the debug endpoint listens when enabled; `0` (default) serves it on the health probe
   * address instead.
   */
  debugBindAddress?: string;
  /** A check that has not settled after this long fails. Default 10 s. */
  checkTimeoutMs?: number;
  logger?: Logger;
}

/** The ports the endpoints actually listen on (absent when disabled). */
export interface ProbesServerPorts {
  metrics?: number;
  probes?: number;
  debug?: number;
}

type Role = 'metrics' | 'probes' | 'debug';

interface Listener {
  readonly address: BindAddress;
  readonly roles: Set<Role>;
  server?: http.Server | https.Server;
}

interface CheckOutcome {
  name: string;
  error?: string;
}

const DEBUG_QUEUES_PATH = '/debug/queues';
const DEFAULT_CHECK_TIMEOUT_MS = 10_000;

/**
 * Serves metrics, health and readiness probes, and the debug endpoint.
 *
 * `/healthz` and `/readyz` answer 200 `ok` when every check passes (or none is registered), else
 * 503 listing each check as `[+]name ok` or `[-]name failed`; `?verbose` lists the checks on
 * success too and shows failures' messages; `?exclude=name` skips a check; `/healthz/<name>` runs
 * one check.
 *
 * @example
 * const probes = new ProbesServer({ metrics, metricsBindAddress: ':8080', healthProbeBindAddress: ':8081' });
 * probes.addHealthCheck('ping', () => {});
 * probes.addReadyCheck('cache', () => { if (!cache.synced()) throw new Error('cache not synced'); });
 * const ports = await probes.start();
 */
export class ProbesServer {
  private readonly healthChecks = new Map<string, Check>();
  private readonly readyChecks = new Map<string, Check>();
  private debugProvider: DebugProvider | undefined;
  private readonly listeners: Listener[] = [];
  private readonly checkTimeoutMs: number;
  private started = false;

  /** @throws Error when a bind address is malformed. */
  constructor(private readonly options: ProbesServerOptions = {}) {
    this.checkTimeoutMs = options.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
    const metrics = options.metrics ? parseBindAddress(options.metricsBindAddress ?? ':8080') : undefined;
    const probes = parseBindAddress(options.healthProbeBindAddress ?? ':8081');
    let debug: BindAddress | undefined;
    if (options.enableDebugEndpoint) {
      debug = parseBindAddress(options.debugBindAddress ?? '0') ?? probes;
      if (!debug) {
        throw new Error(
          'the debug endpoint is enabled but has no address: set a debug or health probe address',
        );
      }
    }
    if (metrics) this.listen(metrics, 'metrics');
    if (probes) this.listen(probes, 'probes');
    if (debug) this.listen(debug, 'debug');
    const shared = this.listeners.find((l) => l.roles.has('metrics') && l.roles.size > 1);
    if (options.metricsSecure && shared) {
      throw new Error(
        `secure metrics need an address of their own: ${formatBindAddress(shared.address)} also serves ` +
          `${[...shared.roles].filter((r) => r !== 'metrics').join(' and ')}`,
      );
    }
  }

  /** Adds (or replaces) a liveness check, run on every `/healthz` request. */
  addHealthCheck(name: string, check: Check): this {
    this.healthChecks.set(validName(name), check);
    return this;
  }

  /** Adds (or replaces) a readiness check, run on every `/readyz` request. */
  addReadyCheck(name: string, check: Check): this {
    this.readyChecks.set(validName(name), check);
    return this;
  }

  /** Sets what `/debug/queues` returns (only served with `enableDebugEndpoint`). */
  setDebugProvider(provider: DebugProvider): this {
    this.debugProvider = provider;
    return this;
  }

  /**
   * Starts listening on every enabled address. Resolves with the bound ports (the real ones for
   * `:0`); rejects (after closing what did start) when an address cannot be bound.
   */
  async start(): Promise<ProbesServerPorts> {
    if (this.started) throw new Error('ProbesServer already started');
    this.started = true;
    const ports: ProbesServerPorts = {};
    try {
      for (const listener of this.listeners) {
        const server = this.createServer(listener.roles);
        listener.server = server;
        const port = await listen(server, listener.address);
        for (const role of listener.roles) ports[role] = port;
        this.options.logger?.info(
          { address: formatBindAddress({ ...listener.address, port }), serves: [...listener.roles] },
          'probes server listening',
        );
      }
    } catch (err) {
      await this.stop();
      throw err;
    }
    return ports;
  }

  private createServer(roles: Set<Role>): http.Server | https.Server {
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
      // No Date header (neither probes nor Prometheus read it): Node formats it with
      // Date#toUTCString, whose first call pages in ICU's zone data (iso-time.ts).
      res.sendDate = false;
      this.handle(roles, req, res).catch((err: unknown) => {
        this.options.logger?.error({ err }, 'probes server: request failed');
        if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
        else res.destroy();
      });
    };
    const secure = this.options.metricsSecure;
    if (!secure || !roles.has('metrics')) return http.createServer(handler);
    const { cert, key } = secure.certs.start();
    const server = https.createServer({ cert, key }, handler);
    // A rotated pair serves new connections at once; no restart.
    secure.certs.onReload((next) => server.setSecureContext({ cert: next.cert, key: next.key }));
    return server;
  }

  /** Stops every server, closing idle keep-alive connections too. Idempotent. */
  async stop(): Promise<void> {
    this.options.metricsSecure?.certs.stop();
    await Promise.all(
      this.listeners.map(async (listener) => {
        const server = listener.server;
        listener.server = undefined;
        if (!server?.listening) return;
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
      }),
    );
  }

  private listen(address: BindAddress, role: Role): void {
    const key = formatBindAddress(address);
    const existing = this.listeners.find((l) => formatBindAddress(l.address) === key);
    if (existing) existing.roles.add(role);
    else this.listeners.push({ address, roles: new Set([role]) });
  }

  private async handle(roles: Set<Role>, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const route = this.route(roles, path);
    if (!route) {
      send(res, 404, 'text/plain; charset=utf-8', '404 page not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
      return;
    }
    await route(url, res);
  }

  private route(
    roles: Set<Role>,
    path: string,
  ): ((url: URL, res: http.ServerResponse) => Promise<void>) | undefined {
    if (roles.has('metrics') && path === '/metrics') return (_url, res) => this.serveMetrics(res);
    if (roles.has('debug') && path === DEBUG_QUEUES_PATH) return (url, res) => this.serveDebug(url, res);
    if (roles.has('probes')) {
      const m = /^\/(healthz|readyz)(?:\/([^/]+))?$/.exec(path);
      if (m) {
        const kind = m[1] as 'healthz' | 'readyz';
        const checks = kind === 'healthz' ? this.healthChecks : this.readyChecks;
        const one = m[2] === undefined ? undefined : decodeURIComponent(m[2]);
        if (one !== undefined && !checks.has(one)) return undefined;
        return (url, res) => this.serveChecks(kind, checks, one, url, res);
      }
    }
    return undefined;
  }

  private async serveMetrics(res: http.ServerResponse): Promise<void> {
    const secure = this.options.metricsSecure;
    if (secure) {
      // HEAD is a GET without its body: one right, `get /metrics`, covers both.
      const decision = await secure.access.decide(res.req.headers.authorization, {
        path: '/metrics',
        verb: 'get',
      });
      if (decision.status !== 200) {
        if (decision.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
        send(res, decision.status, 'text/plain; charset=utf-8', `${decision.message}\n`);
        return;
      }
    }
    const metrics = this.options.metrics as MetricsSource;
    const body = await metrics.text();
    send(res, 200, metrics.contentType, body);
  }

  private async serveDebug(url: URL, res: http.ServerResponse): Promise<void> {
    if (!this.debugProvider) {
      send(res, 404, 'text/plain; charset=utf-8', 'no debug provider registered\n');
      return;
    }
    const body = await this.debugProvider(url.searchParams);
    send(res, 200, 'application/json', `${JSON.stringify(body ?? null, null, 2)}\n`);
  }

  private async serveChecks(
    kind: 'healthz' | 'readyz',
    checks: Map<string, Check>,
    only: string | undefined,
    url: URL,
    res: http.ServerResponse,
  ): Promise<void> {
    const verbose = url.searchParams.has('verbose');
    const excluded = new Set(url.searchParams.getAll('exclude'));
    const selected = [...checks].filter(([name]) =>
      only === undefined ? !excluded.has(name) : name === only,
    );
    const outcomes = await Promise.all(selected.map(([name, check]) => this.runCheck(name, check)));
    const failed = outcomes.filter((o) => o.error !== undefined);
    if (failed.length === 0 && !verbose) {
      send(res, 200, 'text/plain; charset=utf-8', 'ok');
      return;
    }
    const lines = outcomes.map((o) =>
      o.error === undefined
        ? `[+]${o.name} ok`
        : `[-]${o.name} failed: ${verbose ? o.error : 'reason withheld'}`,
    );
    for (const name of excluded) if (checks.has(name)) lines.push(`[+]${name} excluded: ok`);
    lines.push(`${kind} check ${failed.length === 0 ? 'passed' : 'failed'}`);
    if (failed.length > 0) {
      this.options.logger?.info(
        { probe: kind, failed: failed.map((o) => `${o.name}: ${o.error}`) },
        `${kind} check failed`,
      );
    }
    send(res, failed.length === 0 ? 200 : 503, 'text/plain; charset=utf-8', `${lines.join('\n')}\n`);
  }

  private async runCheck(name: string, check: Check): Promise<CheckOutcome> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${this.checkTimeoutMs} ms`)),
        this.checkTimeoutMs,
      );
      timer.unref();
    });
    try {
      const result = await Promise.race([Promise.resolve().then(check), timeout]);
      return result === false ? { name, error: 'check returned false' } : { name };
    } catch (err) {
      return { name, error: err instanceof Error ? err.message : String(err) };
    } finally {
      clearTimeout(timer);
    }
  }
}

function validName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
    throw new Error(`invalid check name "${name}": use letters, digits, '.', '_' and '-'`);
  }
  return name;
}

function send(res: http.ServerResponse, code: number, contentType: string, body: string): void {
  res.writeHead(code, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function listen(server: http.Server | https.Server, address: BindAddress): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      reject(new Error(`cannot listen on ${formatBindAddress(address)}: ${err.message}`, { cause: err }));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(address.port, address.host);
  });
}
