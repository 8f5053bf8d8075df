/**
 * The webhook server: HTTPS with the certificate from `--webhook-cert-dir` (reloaded when it
 * changes), one path per admission webhook and `/convert` for CRD conversion. It runs on every
 * replica, not only the leader, since the API server calls whichever pod the Service picks.
 *
 * Every request ends in an answer: a body that is not a review gets 400 with what is wrong, a
 * handler that throws gets a denial saying so (and `controller_runtime_webhook_panics_total`), one
 * that outlives its timeout a 504 denial. Nothing a caller sends can crash the process.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import type { KubeObject, ResourceType } from '../api/types.js';
import type { Logger } from '../log/logger.js';
import {
  type AdmissionHandler,
  type Defaulter,
  defaultingHandler,
  mutatePath,
  type Validator,
  validatePath,
  validatingHandler,
} from './admission.js';
import { CertWatcher } from './cert-watcher.js';
import {
  type AdmissionOptions,
  type AdmissionRegistration,
  type ConfigurationOptions,
  DEFAULT_TIMEOUT_SECONDS,
  type WebhookConfigurationObject,
  webhookConfigurations,
} from './configurations.js';
import { ConversionRegistry, type ConversionScheme } from './conversion.js';
import type { WebhookMetrics } from './metrics.js';
import { type Answer, serveAdmission, serveConversion } from './serve.js';

/** Where controller-runtime looks for the serving certificate by default. */
export const DEFAULT_WEBHOOK_CERT_DIR = join(tmpdir(), 'k8s-webhook-server', 'serving-certs');
/** The path CRD conversion is served on. */
export const CONVERSION_PATH = '/convert';

/** Options of a {@link WebhookServer}. */
export interface WebhookServerOptions {
  /** Default 9443; 0 picks a free port. */
  port?: number;
  /** Address to listen on; default all interfaces. */
  host?: string;
  /** Folder holding `tls.crt` and `tls.key`; default {@link DEFAULT_WEBHOOK_CERT_DIR}. */
  certDir?: string;
  certName?: string;
  keyName?: string;
  /** How often the certificate files are compared besides being watched. Default 10 s. */
  certPollIntervalMs?: number;
  /** A bigger body is refused with 413. Default 32 MiB. */
  maxBodyBytes?: number;
  /** How long a stop lets in-flight requests finish before closing their connections. Default 5 s. */
  shutdownGraceMs?: number;
  metrics?: WebhookMetrics;
  logger?: Logger;
}

/** Options of the conversion endpoint. */
export interface ConversionOptions {
  /** How long a conversion may take before the server answers a failure. Default 10 s. */
  timeoutMs?: number;
}

interface Route {
  serve(body: unknown, path: string): Promise<Answer>;
}

/** Serves admission and conversion webhooks over HTTPS. */
export class WebhookServer {
  private readonly routes = new Map<string, Route>();
  private readonly registrations: AdmissionRegistration[] = [];
  private readonly conversions = new ConversionRegistry();
  private readonly certs: CertWatcher;
  private server: Server | undefined;
  private boundPort: number | undefined;

  constructor(private readonly options: WebhookServerOptions = {}) {
    this.certs = new CertWatcher({
      certDir: options.certDir ?? DEFAULT_WEBHOOK_CERT_DIR,
      certName: options.certName,
      keyName: options.keyName,
      pollIntervalMs: options.certPollIntervalMs,
      logger: options.logger,
    });
    this.certs.onReload((next) => this.server?.setSecureContext({ cert: next.cert, key: next.key }));
  }

  /** Whether anything is registered; a manager starts the server only then. */
  get hasHandlers(): boolean {
    return this.routes.size > 0;
  }

  /** The port listened on, once started. */
  get port(): number | undefined {
    return this.boundPort;
  }

  /** The certificate watcher (its `reload()` forces a re-read). */
  get certificate(): CertWatcher {
    return this.certs;
  }

  /** Serves `defaulter` for `type` on {@link mutatePath}. Returns the path. */
  addDefaulter<T extends KubeObject>(
    type: ResourceType<T>,
    defaulter: Defaulter<T>,
    options: AdmissionOptions = {},
  ): string {
    const path = this.addAdmission(mutatePath(type), defaultingHandler(type, defaulter), options);
    this.registrations.push({ path, mutating: true, type, options });
    return path;
  }

  /** Serves `validator` for `type` on {@link validatePath}. Returns the path. */
  addValidator<T extends KubeObject>(
    type: ResourceType<T>,
    validator: Validator<T>,
    options: AdmissionOptions = {},
  ): string {
    const path = this.addAdmission(validatePath(type), validatingHandler(type, validator), options);
    this.registrations.push({ path, mutating: false, type, options });
    return path;
  }

  /**
   * Serves a raw admission handler on `path` (its configuration is yours to write: it has no kind
   * for {@link WebhookServer.configurations} to derive rules from). Returns the path.
   */
  addAdmission(path: string, handler: AdmissionHandler, options: AdmissionOptions = {}): string {
    const timeoutMs = options.timeoutMs ?? (options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
    this.addRoute(path, {
      serve: (body) => serveAdmission(body, handler, this.handlerContext(path, timeoutMs)),
    });
    return path;
  }

  /**
   * The Mutating/ValidatingWebhookConfigurations calling `options.service` for every defaulter and
   * validator, with each one's operations, failure policy and timeout: write them to the deploy
   * manifests, or check the manifests against them.
   */
  configurations(options: ConfigurationOptions): WebhookConfigurationObject[] {
    return webhookConfigurations(this.registrations, options);
  }

  /** Serves conversion for a kind's versions on {@link CONVERSION_PATH}. */
  addConversion(scheme: ConversionScheme, options: ConversionOptions = {}): string {
    this.conversions.add(scheme);
    if (!this.routes.has(CONVERSION_PATH)) {
      this.addRoute(CONVERSION_PATH, {
        serve: (body) =>
          serveConversion(
            body,
            this.conversions,
            this.handlerContext(CONVERSION_PATH, options.timeoutMs ?? DEFAULT_TIMEOUT_SECONDS * 1000),
          ),
      });
    }
    return CONVERSION_PATH;
  }

  /** Loads the certificate and listens. Rejects with a clear message if either cannot be done. */
  async start(): Promise<number> {
    if (this.server) throw new Error('the webhook server is started already');
    const cert = this.certs.start();
    const server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => this.handle(req, res));
    server.on('tlsClientError', () => {}); // a client that gives up mid-handshake is its own problem
    // The API server waits 30 s at most: a request that has not arrived in a minute never will.
    server.requestTimeout = 60_000;
    server.headersTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err) => {
        this.certs.stop();
        reject(
          new Error(`webhook server cannot listen on port ${this.options.port ?? 9443}: ${err.message}`),
        );
      });
      server.listen(this.options.port ?? 9443, this.options.host || undefined, () => resolve());
    });
    this.server = server;
    const address = server.address();
    this.boundPort = typeof address === 'object' && address ? address.port : undefined;
    this.options.logger?.info(
      { port: this.boundPort, paths: [...this.routes.keys()] },
      'webhook server listening',
    );
    return this.boundPort as number;
  }

  /**
   * Stops listening, lets in-flight requests finish (up to the grace period), then closes every
   * connection. Idempotent.
   */
  async stop(): Promise<void> {
    this.certs.stop();
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections(); // the API server's keep-alive connections
    const grace = setTimeout(() => server.closeAllConnections(), this.options.shutdownGraceMs ?? 5_000);
    await closed;
    clearTimeout(grace);
  }

  /**
   * A readiness check: passes once a TLS handshake with the server succeeds (controller-runtime's
   * `StartedChecker`), so a pod is not sent admission calls before it can answer them.
   */
  async checkStarted(): Promise<boolean> {
    if (!this.server || this.boundPort === undefined) throw new Error('the webhook server is not listening');
    const host = this.options.host && this.options.host !== '0.0.0.0' ? this.options.host : '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      const socket = connect(
        { host, port: this.boundPort, rejectUnauthorized: false, timeout: 5_000 },
        () => {
          socket.end();
          resolve();
        },
      );
      socket.on('error', reject);
      socket.on('timeout', () =>
        socket.destroy(new Error('TLS handshake with the webhook server timed out')),
      );
    });
    return true;
  }

  private addRoute(path: string, route: Route): void {
    if (!path.startsWith('/')) throw new Error(`a webhook path must start with "/": ${path}`);
    if (this.routes.has(path)) throw new Error(`a webhook is registered on ${path} already`);
    if (this.server) throw new Error('register webhooks before the server starts');
    this.routes.set(path, route);
  }

  private handlerContext(path: string, timeoutMs: number) {
    return {
      path,
      timeoutMs,
      logger: this.options.logger,
      panicked: () => this.options.metrics?.panicked(),
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] as string;
    const route = this.routes.get(path);
    const label = route ? path : 'unknown';
    const started = performance.now();
    this.options.metrics?.started(label);
    let answer: Answer;
    try {
      answer = route
        ? await this.answer(req, route, path)
        : { code: 404, body: { message: `no webhook on ${path}` } };
    } catch (err) {
      this.options.logger?.error({ err, path }, 'webhook request failed');
      answer = { code: 500, body: { message: `internal error: ${(err as Error).message}` } };
    }
    this.options.metrics?.finished(label, answer.code, (performance.now() - started) / 1000);
    if (res.writableEnded || res.destroyed) return;
    // Stopping: close the connection after this answer rather than keep it alive.
    if (!this.server) res.setHeader('connection', 'close');
    res.writeHead(answer.code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer.body));
  }

  private async answer(req: IncomingMessage, route: Route, path: string): Promise<Answer> {
    if (req.method !== 'POST')
      return { code: 405, body: { message: `${req.method} is not allowed; POST a review` } };
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim();
    if (type !== 'application/json') {
      req.resume();
      return { code: 400, body: { message: `content type must be application/json, got "${type ?? ''}"` } };
    }
    const limit = this.options.maxBodyBytes ?? 32 * 1024 * 1024;
    const text = await readBody(req, limit);
    if (text === undefined) return { code: 413, body: { message: `the body exceeds ${limit} bytes` } };
    if (text.trim() === '') return { code: 400, body: { message: 'the request body is empty' } };
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      return { code: 400, body: { message: `the request body is not JSON: ${(err as Error).message}` } };
    }
    return route.serve(body, path);
  }
}

/** The body as text, or undefined once it grows past `limit` bytes (the rest is discarded). */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
