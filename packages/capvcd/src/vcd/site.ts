/**
 * One VCD site: its HTTPS agent (TLS verified against the system roots or a CA bundle; skipped only
 * when asked), its request budget (a token bucket shared by every session on the site), and the
 * API version negotiated once through `GET /api/versions`.
 */

import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import { realClock, sleep } from '@capstan/runtime';
import { TokenBucketRateLimiter } from '@capstan/runtime/workqueue';
import { errorFromBody, VcdError } from './errors.js';
import { listOf, parseXml, textOf } from './xml.js';

/** The API versions this client speaks, best first; the highest one the site lists is used. */
export const SUPPORTED_VERSIONS = ['38.1', '38.0', '37.3', '37.2', '37.1', '37.0'] as const;

/** How to reach a site. */
export interface SiteOptions {
  /** `https://vcd.example.com` (a path prefix is kept). */
  url: string;
  /** PEM CA bundle to verify the site with, instead of the system roots. */
  caPem?: string;
  /** Skip TLS verification. Only ever when a user set it. */
  insecure?: boolean;
  /** Requests per second to this site (default 10) and the burst after a quiet spell (default 20). */
  qps?: number;
  burst?: number;
  /** Per-request timeout (default 60 s). */
  timeoutMs?: number;
}

/** One HTTP answer, body as text. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** What every request to a site reports (for metrics and tests); never headers or bodies. */
export interface CallInfo {
  method: string;
  /** The path with ids replaced by `{id}`, e.g. `/api/vApp/vm-{id}/power/action/powerOn`. */
  path: string;
  status: number;
  durationMs: number;
}

/** `/api/vApp/vm-1b2c...` → `/api/vApp/vm-{id}`: a bounded label for metrics. */
export function pathTemplate(path: string): string {
  return (path.split('?')[0] ?? '')
    .replace(/urn:vcloud:[a-zA-Z]+:[0-9a-fA-F-]{36}/g, '{id}')
    .replace(/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g, '{id}');
}

/** A site's connection, rate limit and negotiated version. */
export class Site {
  readonly base: URL;
  private readonly agent: Agent | HttpAgent;
  private readonly limiter: TokenBucketRateLimiter<string>;
  private readonly timeoutMs: number;
  private negotiated: Promise<string> | undefined;

  constructor(
    readonly options: SiteOptions,
    private readonly onCall: (info: CallInfo) => void = () => {},
  ) {
    this.base = new URL(options.url.replace(/\/+$/, ''));
    this.agent =
      this.base.protocol === 'http:'
        ? new HttpAgent({ keepAlive: true })
        : new Agent({
            keepAlive: true,
            ...(options.caPem ? { ca: options.caPem } : {}),
            rejectUnauthorized: options.insecure !== true,
          });
    this.limiter = new TokenBucketRateLimiter({ qps: options.qps ?? 10, burst: options.burst ?? 20 });
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  /** The API version to speak: the best of {@link SUPPORTED_VERSIONS} the site lists (asked once). */
  version(): Promise<string> {
    this.negotiated ??= this.negotiate().catch((err: unknown) => {
      this.negotiated = undefined; // a failure is not cached: ask again next time
      throw err;
    });
    return this.negotiated;
  }

  private async negotiate(): Promise<string> {
    const res = await this.send('GET', '/api/versions', { Accept: 'application/*+xml' });
    if (res.status !== 200) throw errorFromBody(res.status, res.body, 'GET /api/versions');
    const offered = new Set(
      listOf(parseXml(res.body).SupportedVersions, 'VersionInfo').map((v) => textOf(v.Version)),
    );
    const chosen = SUPPORTED_VERSIONS.find((v) => offered.has(v));
    if (!chosen) {
      throw new VcdError(
        0,
        'UNSUPPORTED_VERSION',
        `the site offers API versions ${[...offered].join(', ')}; this provider speaks ${SUPPORTED_VERSIONS.join(', ')}`,
        'GET /api/versions',
      );
    }
    return chosen;
  }

  /** Sends one request after taking a token of the site's budget. Rejects only on connection failure. */
  async send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<RawResponse> {
    await sleep(realClock, this.limiter.when('site'));
    const url = new URL(this.base.pathname.replace(/\/$/, '') + path, this.base);
    const started = performance.now();
    const call = `${method} ${pathTemplate(path)}`;
    try {
      const res = await this.exchange(method, url, headers, body);
      this.onCall({
        method,
        path: pathTemplate(path),
        status: res.status,
        durationMs: performance.now() - started,
      });
      return res;
    } catch (err) {
      this.onCall({ method, path: pathTemplate(path), status: 0, durationMs: performance.now() - started });
      throw new VcdError(0, 'CONNECTION_FAILED', `${call}: ${(err as Error).message}`, call);
    }
  }

  private exchange(
    method: string,
    url: URL,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<RawResponse> {
    const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        url,
        {
          method,
          agent: this.agent,
          headers: {
            ...headers,
            ...(body !== undefined ? { 'Content-Length': Buffer.byteLength(body) } : {}),
          },
          timeout: this.timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }

  /** Closes idle connections. */
  close(): void {
    this.agent.destroy();
  }
}
