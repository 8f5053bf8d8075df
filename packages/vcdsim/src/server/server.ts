/**
 * The HTTP(S) front: matches a route, applies injected HTTP faults, negotiates the API version,
 * authenticates, runs the handler and answers errors in VCD's shapes (XML `Error` on the legacy API,
 * JSON on CloudAPI and OAuth). A handler that throws anything else gets a 500 and a log line, never
 * a crashed process. Every request is recorded in the request log.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Simulator } from '../simulator.js';
import { errorJson, errors, errorXml, VcdError } from './errors.js';
import { type Ctx, type Reply, readBody } from './http.js';
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

function tokenOf(req: IncomingMessage): string | undefined {
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
  req: IncomingMessage,
  base: string,
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
      body: () => (bodyCache ??= readBody(req)),
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
    if (!(e instanceof VcdError)) sim.hookErrors.push({ vm: `${method} ${path}`, error: e });
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
export async function listen(
  sim: Simulator,
  router: Router,
  opts: ListenOptions,
): Promise<{ server: http.Server; url: string }> {
  let base = '';
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    handle(sim, router, req, base)
      .catch((e: unknown) => {
        sim.hookErrors.push({ vm: 'server', error: e });
        return { reply: errorReply(req.url ?? '/', errors.internal()), route: req.url ?? '/' } as {
          reply: Reply;
          route: string;
          user?: string;
        };
      })
      .then(({ reply, route, user }) => {
        // Drain an unread body so keep-alive connections stay usable.
        req.resume();
        const headers: Record<string, string> = { ...(reply.headers ?? {}) };
        if (reply.contentType) headers['Content-Type'] = reply.contentType;
        const body = reply.body ?? '';
        headers['Content-Length'] = String(Buffer.byteLength(body));
        res.writeHead(reply.status, headers);
        res.end(body);
        const url = new URL(req.url ?? '/', base);
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
        opts.logLine?.(
          `${new Date(entry.at).toISOString()} ${entry.method} ${entry.path}${entry.query} ${entry.status} ${entry.durationMs.toFixed(1)}ms${user ? ` ${user}` : ''}`,
        );
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
