/**
 * A plain-HTTP proxy in front of the run's real kube-apiserver, for tests of what a client does
 * with answers the server gives only under conditions a test cannot summon at will (a refusal of
 * watch-list, a 410 in a stream, a 429): it records every request, and a test's `intercept` may
 * answer one itself; everything else goes to the apiserver as the admin.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeConfig as ClientNodeKubeConfig } from '@kubernetes/client-node';

/** A request as the proxy saw it. */
export interface ProxiedRequest {
  readonly method: string;
  readonly url: string;
  readonly query: URLSearchParams;
  /** When it arrived (`Date.now()`). */
  readonly at: number;
}

/** Answers a request itself (true), or lets it through (false). */
export type Intercept = (request: ProxiedRequest, res: ServerResponse) => boolean;

export class ApiProxy {
  /** Every request, as `METHOD url`. */
  readonly requests: string[] = [];
  readonly seen: ProxiedRequest[] = [];
  intercept: Intercept | undefined;
  /** Holds every chunk of a watch stream this long: a watch that lags behind the writes. */
  watchDelayMs = 0;
  private server: Server | undefined;
  private upstream: KubeConfig | undefined;

  /** Starts listening; answers a kubeconfig that reaches `upstream`'s apiserver through the proxy. */
  async start(upstream: KubeConfig): Promise<KubeConfig> {
    this.upstream = upstream;
    const target = new URL(upstream.getCurrentCluster()?.server as string);
    this.server = createServer((req, res) => void this.forward(target, req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    const kc = new ClientNodeKubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'proxy', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'proxy' }],
      contexts: [{ name: 'proxy', cluster: 'proxy', user: 'proxy' }],
      currentContext: 'proxy',
    });
    return kc;
  }

  stop(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Forgets the requests seen so far. */
  clear(): void {
    this.requests.length = 0;
    this.seen.length = 0;
  }

  private async forward(target: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const request = {
      method: req.method ?? 'GET',
      url,
      query: new URL(url, 'http://x').searchParams,
      at: Date.now(),
    };
    this.requests.push(`${request.method} ${url}`);
    this.seen.push(request);
    if (this.intercept?.(request, res)) {
      req.resume();
      return;
    }
    const options: https.RequestOptions = {
      method: req.method,
      hostname: target.hostname,
      port: target.port,
      path: url,
      headers: { ...req.headers, host: target.host },
    };
    await this.upstream?.applyToHTTPSOptions(options);
    const delay = request.query.get('watch') ? this.watchDelayMs : 0;
    const out = https.request(options, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (delay === 0) answer.pipe(res);
      else {
        answer.on('data', (chunk: Buffer) => setTimeout(() => res.write(chunk), delay));
        answer.on('end', () => setTimeout(() => res.end(), delay));
      }
    });
    res.on('close', () => out.destroy());
    out.on('error', () => res.destroy());
    req.pipe(out);
  }
}

/** Writes a Status answer with `code` (and any extra headers). */
export function answerStatus(
  res: ServerResponse,
  code: number,
  reason: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(code, { 'Content-Type': 'application/json', ...headers });
  res.end(
    JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      code,
    }),
  );
}
