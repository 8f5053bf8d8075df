/**
 * The HTTP(S) front: matches a route, applies injected HTTP faults, negotiates the API version,
 * authenticates, runs the handler and answers errors in VCD's shapes (XML `Error` on the legacy API,
 * JSON on CloudAPI and OAuth). A handler that throws anything else gets a 500 and a log line, never
 * a crashed process. Every request is recorded in the request log.
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Simulator } from '../simulator.js';
import { errorJson, errors, errorXml, VcdError } from './errors.js';
import { type Ctx, type Reply, type RequestHead, readBody } from './http.js';
import type { Router } from './router.js';
import { CURRENT_VERSION, isSupported, requestedVersion, SUPPORTED_VERSIONS } from './versions.js';

/** How to listen. */
export interface ListenOptions {
  host: string;
  port: number;
  /** Key and certificate for HTTPS; plain HTTP when absent. */
  tls?: { keyPem: string; certPem: string };
  /** Receives one line per request served. */
  logLine?: (line: string) => void;
}

const isJsonPath = (p: string) =>
  p.startsWith('/cloudapi') || p.startsWith('/oauth') || p.startsWith('/inspect');

function tokenOf(req: RequestHead): string | undefined {
  const h = req.headers['x-vmware-vcloud-access-token'];
  if (typeof h === 'string' && h) return h;
  const m = /^bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  return m?.[1];
}

function errorReply(path: string, e: VcdError): Reply {
  return isJsonPath(path)
    ? { status: e.status, contentType: 'application/json', body: errorJson(e), headers: e.headers }
    : {
        status: e.status,
        contentType: 'application/vnd.vmware.vcloud.error+xml',
        body: errorXml(e),
        headers: e.headers,
      };
}

/** Runs one request through the pipeline and returns the reply and the route it matched. */
async function handle(
  sim: Simulator,
  router: Router,
  req: RequestHead,
  base: string,
  readRequestBody: () => Promise<Buffer>,
): Promise<{ reply: Reply; route: string; user?: string }> {
  const url = new URL(req.url ?? '/', base);
  const path = url.pathname.replace(/\/{2,}/g, '/');
  const method = (req.method ?? 'GET').toUpperCase();
  const match = router.match(method, path);
  if (!match) return { reply: errorReply(path, errors.notFound()), route: path };
  if ('allowed' in match) return { reply: errorReply(path, errors.methodNotAllowed(method)), route: path };
  const { route, params } = match;
  let user: string | undefined;
  try {
    const injected = sim.faults.takeHttpError(method, route.pattern, path);
    const delay = sim.faults.delayFor(method, route.pattern, path);
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    if (injected) throw injected;
    const asked = requestedVersion(req.headers.accept);
    if (route.versioned && !isSupported(asked))
      throw errors.notAcceptable(
        `The request has invalid accept header: Invalid API version requested. Supported API versions are: [${[...SUPPORTED_VERSIONS].reverse().join(', ')}]`,
      );
    let bodyCache: Promise<Buffer> | undefined;
    const ctx: Ctx = {
      req,
      method,
      path,
      query: url.searchParams,
      params,
      base,
      version: isSupported(asked) ? asked : CURRENT_VERSION,
      session: undefined,
      body: () => (bodyCache ??= readRequestBody()),
    };
    if (route.auth) {
      ctx.session = sim.auth.verify(tokenOf(req));
      user = `${ctx.session.user.name}@${ctx.session.org.name}`;
    }
    const reply = await route.handler(ctx);
    if (ctx.session) user = `${ctx.session.user.name}@${ctx.session.org.name}`;
    return { reply: versioned(reply, ctx.version), route: route.pattern, ...(user ? { user } : {}) };
  } catch (e) {
    const err = e instanceof VcdError ? e : errors.internal();
    if (!(e instanceof VcdError)) sim.failures.push({ where: `${method} ${path}`, error: e });
    const asked = requestedVersion(req.headers.accept);
    return {
      reply: versioned(errorReply(path, err), isSupported(asked) ? asked : CURRENT_VERSION),
      route: route.pattern,
      ...(user ? { user } : {}),
    };
  }
}

function versioned(reply: Reply, version: string): Reply {
  if (!reply.contentType) return reply;
  const vendor =
    reply.contentType.startsWith('application/vnd.vmware') || reply.contentType === 'application/json';
  return vendor ? { ...reply, contentType: `${reply.contentType};version=${version}` } : reply;
}

/** Starts listening; resolves with the server and its base URL. */
/** An answer as the client receives it: status, headers, body. */
export interface ServedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A request served in-process (no socket), as {@link serveInProcess} takes it. */
export interface InProcessRequest {
  method: string;
  /** The path and query, e.g. `/api/org`. */
  url: string;
  headers: Record<string, string>;
  body?: string;
}

type Handled = { reply: Reply; route: string; user?: string };

/** Runs one request through the pipeline; a failure of the pipeline itself is a 500. */
function handled(
  sim: Simulator,
  router: Router,
  req: RequestHead,
  base: string,
  body: () => Promise<Buffer>,
): Promise<Handled> {
  return handle(sim, router, req, base, body).catch((e: unknown) => {
    sim.failures.push({ where: 'server', error: e });
    return { reply: errorReply(req.url ?? '/', errors.internal()), route: req.url ?? '/' };
  });
}

/** The answer's headers, as the server sends them. */
function answerHeaders(reply: Reply): Record<string, string> {
  // VCD tags every answer with a request id (clients log it for support cases).
  const headers: Record<string, string> = {
    'X-VMWARE-VCLOUD-REQUEST-ID': randomUUID(),
    ...(reply.headers ?? {}),
  };
  if (reply.contentType) headers['Content-Type'] = reply.contentType;
  headers['Content-Length'] = String(Buffer.byteLength(reply.body ?? ''));
  return headers;
}

/** Records a served request in the request log; returns the log line. */
function record(sim: Simulator, req: RequestHead, base: string, done: Handled, started: number): string {
  const url = new URL(req.url ?? '/', base);
  const { reply, route, user } = done;
  const entry = sim.log.add({
    at: Date.now(),
    method: (req.method ?? 'GET').toUpperCase(),
    path: url.pathname,
    route,
    query: url.search,
    status: reply.status,
    ...(user ? { user } : {}),
    durationMs: performance.now() - started,
  });
  return `${new Date(entry.at).toISOString()} ${entry.method} ${entry.path}${entry.query} ${entry.status} ${entry.durationMs.toFixed(1)}ms${user ? ` ${user}` : ''}`;
}

/**
 * Serves one request in-process, through the same pipeline as the HTTP front (routes, faults,
 * versions, authentication, the request log): for harnesses that run a client and the simulator
 * on one virtual clock, where a socket's real-time round trip would break determinism.
 */
export async function serveInProcess(
  sim: Simulator,
  router: Router,
  base: string,
  request: InProcessRequest,
): Promise<ServedAnswer> {
  const started = performance.now();
  const head: RequestHead = {
    method: request.method,
    url: request.url,
    headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v])),
  };
  const done = await handled(sim, router, head, base, async () => Buffer.from(request.body ?? ''));
  record(sim, head, base, done, started);
  return { status: done.reply.status, headers: answerHeaders(done.reply), body: done.reply.body ?? '' };
}

/** Starts listening; resolves with the server and its base URL. */
export async function listen(
  sim: Simulator,
  router: Router,
  opts: ListenOptions,
): Promise<{ server: http.Server; url: string }> {
  let base = '';
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    void handled(sim, router, req, base, () => readBody(req)).then((done) => {
      // Drain an unread body so keep-alive connections stay usable.
      req.resume();
      res.writeHead(done.reply.status, answerHeaders(done.reply));
      res.end(done.reply.body ?? '');
      const line = record(sim, req, base, done, started);
      opts.logLine?.(line);
    });
  };
  const server = opts.tls
    ? https.createServer({ key: opts.tls.keyPem, cert: opts.tls.certPem, keepAlive: true }, onRequest)
    : http.createServer({ keepAlive: true }, onRequest);
  server.on('clientError', (_e, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  base = `${opts.tls ? 'https' : 'http'}://${host === '0.0.0.0' ? '127.0.0.1' : host}:${addr.port}`;
  return { server, url: base };
}
