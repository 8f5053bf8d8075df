/**
 * One VCD site: its HTTPS agent (TLS verified against the system roots or a CA bundle; skipped only
 * when asked), its request budget (one p-queue shared by every session on the site: how many
 * requests are in flight at once, and how many start in any rolling window), and the API version
 * negotiated once through `GET /api/versions`.
 */

import type { Agent } from 'node:http';
import { type HttpAnswer, keepAliveAgent, RequestTimeoutError, sendRequest } from '@capstan/runtime/http';
import PQueue from 'p-queue';
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
  /** Requests in flight to this site at once (default 20): a slow site is not sent more. */
  concurrency?: number;
  /** Per-request timeout (default 60 s). */
  timeoutMs?: number;
  /** Sends the requests instead of HTTPS (a simulator served in-process); TLS options are then unused. */
  transport?: VcdTransport;
}

/** One request, as a {@link VcdTransport} sends it. */
export interface VcdRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** Sends a request to a site and answers as HTTPS would (header names in lower case). */
export type VcdTransport = (url: URL, request: VcdRequest) => Promise<HttpAnswer>;

/** One HTTP answer, body as text. */
export type RawResponse = HttpAnswer;

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

/** How the last TLS handshake with a site went: verified, unverified (switched off) or failed. */
export interface HandshakeOutcome {
  verified: boolean;
  /** Why it failed (the TLS error); empty when it did not. */
  message: string;
}

/** Node's certificate verification errors (`err.code`), as distinct from a refused connection. */
const CERTIFICATE_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The TLS failure a request error stands for, or undefined when it is not one. */
export function handshakeFailure(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  return CERTIFICATE_CODES.has(code) || code.startsWith('ERR_SSL_')
    ? `${code}: ${(err as Error).message}`
    : undefined;
}

/**
 * The budget `options` give a site: at most `concurrency` requests in flight, and at most `burst`
 * started in any rolling `burst / qps` seconds (so `qps` in the long run, `burst` after a quiet
 * spell). A rate that is not positive leaves only the concurrency bound.
 */
export function requestBudget(options: Pick<SiteOptions, 'qps' | 'burst' | 'concurrency'>): PQueue {
  const qps = options.qps ?? 10;
  const burst = Math.max(1, Math.floor(options.burst ?? 20));
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 20));
  if (!(qps > 0) || !Number.isFinite(qps)) return new PQueue({ concurrency });
  return new PQueue({
    concurrency,
    intervalCap: burst,
    interval: Math.ceil((burst / qps) * 1000),
    strict: true,
  });
}

/** A site's connection, rate limit and negotiated version. */
export class Site {
  readonly base: URL;
  private readonly agent: Agent;
  private readonly budget: PQueue;
  private readonly timeoutMs: number;
  private negotiated: Promise<string> | undefined;
  private handshake: HandshakeOutcome | undefined;

  constructor(
    readonly options: SiteOptions,
    private readonly onCall: (info: CallInfo) => void = () => {},
  ) {
    this.base = new URL(options.url.replace(/\/+$/, ''));
    this.agent = keepAliveAgent(this.base, {
      ...(options.caPem ? { caPem: options.caPem } : {}),
      ...(options.insecure ? { insecure: true } : {}),
    });
    this.budget = requestBudget(options);
    this.timeoutMs = options.timeoutMs ?? 60_000;
  }

  /** How the last handshake went; undefined before any request got an answer or a TLS error. */
  get lastHandshake(): HandshakeOutcome | undefined {
    return this.handshake;
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

  /** Sends one request within the site's budget (it waits its turn). Rejects only on connection failure. */
  send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawResponse> {
    return this.budget.add(() => this.sendNow(method, path, headers, body));
  }

  private async sendNow(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<RawResponse> {
    const url = new URL(this.base.pathname.replace(/\/$/, '') + path, this.base);
    const started = performance.now();
    const call = `${method} ${pathTemplate(path)}`;
    try {
      const request = { method, headers, ...(body !== undefined ? { body } : {}) };
      const res = this.options.transport
        ? await this.options.transport(url, request)
        : await sendRequest(url, { ...request, agent: this.agent, timeoutMs: this.timeoutMs });
      this.onCall({
        method,
        path: pathTemplate(path),
        status: res.status,
        durationMs: performance.now() - started,
      });
      this.handshake = { verified: this.options.insecure !== true, message: '' };
      return res;
    } catch (err) {
      const tls = handshakeFailure(err);
      if (tls) this.handshake = { verified: false, message: tls };
      this.onCall({ method, path: pathTemplate(path), status: 0, durationMs: performance.now() - started });
      // The timeout's own message repeats the call with its ids; say it as the other failures.
      const reason =
        err instanceof RequestTimeoutError ? `no answer within ${this.timeoutMs} ms` : (err as Error).message;
      throw new VcdError(0, 'CONNECTION_FAILED', `${call}: ${reason}`, call);
    }
  }

  /** Closes idle connections. */
  close(): void {
    this.agent.destroy();
  }
}
