/**
 * The reflector's two list paths against a real kube-apiserver: watch-list where the server has it
 * (1.35 does), and paginated lists behind a proxy that refuses watch-list the way a server without
 * it does: request validation answers 422 Invalid before any watch opens (apimachinery's
 * `ValidateListOptions`: "sendInitialEvents is forbidden for watch unless the WatchList feature gate
 * is enabled"; servers before 1.27 forbid `resourceVersionMatch` on a watch the same way).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { useControlPlane } from '@capstan/envtest/vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Reflector } from '../../src/cache/index.js';
import { ConfigMap, HttpTransport } from '../../src/client/index.js';
import { eventually } from '../../src/testing/index.js';

const env = useControlPlane('watchlist');
const COUNT = 250;

/** A plain-HTTP proxy to the apiserver that records every request and may refuse watch-lists. */
class RecordingProxy {
  readonly requests: string[] = [];
  refuseWatchList = false;
  private server: Server | undefined;

  async start(): Promise<KubeConfig> {
    const upstream = new URL(env.kubeConfig.getCurrentCluster()?.server as string);
    this.server = createServer((req, res) => void this.forward(upstream, req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    const kc = new KubeConfig();
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

  private async forward(upstream: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    this.requests.push(`${req.method} ${url}`);
    const query = new URL(url, 'http://x').searchParams;
    if (this.refuseWatchList && query.get('watch') && query.get('sendInitialEvents') === 'true') {
      res.writeHead(422, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message:
            'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
          reason: 'Invalid',
          details: { group: 'meta.k8s.io', kind: 'ListOptions' },
          code: 422,
        }),
      );
      return;
    }
    const options: https.RequestOptions = {
      method: req.method,
      hostname: upstream.hostname,
      port: upstream.port,
      path: url,
      headers: { ...req.headers, host: upstream.host },
    };
    await env.kubeConfig.applyToHTTPSOptions(options);
    const out = https.request(options, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    res.on('close', () => out.destroy());
    out.on('error', () => res.destroy());
    req.pipe(out);
  }
}

const proxy = new RecordingProxy();
let transport: HttpTransport;
beforeAll(async () => {
  const seeder = new HttpTransport(env.kubeConfig);
  await Promise.all(
    Array.from({ length: COUNT }, (_, i) =>
      seeder.create(ConfigMap, {
        metadata: { name: `cm-${i}`, namespace: env.namespace },
        data: { i: String(i) },
      }),
    ),
  );
  seeder.close();
  transport = new HttpTransport(await proxy.start());
});
afterAll(async () => {
  transport?.close();
  await proxy.stop();
});

async function syncedReflector(pageSize: number) {
  const reflector = new Reflector<ConfigMap>(transport, ConfigMap, { namespace: env.namespace, pageSize });
  reflector.start();
  await reflector.whenSynced();
  return reflector;
}

const isList = (r: string) => r.startsWith('GET ') && !r.includes('watch=') && r.includes('/configmaps');
const isWatchList = (r: string) => r.includes('watch=1') && r.includes('sendInitialEvents=true');

describe('Reflector against a real apiserver', () => {
  it('lists with one watch-list stream (no LIST) and carries on watching on it', async () => {
    proxy.requests.length = 0;
    proxy.refuseWatchList = false;
    const reflector = await syncedReflector(100);
    try {
      expect(reflector.store.size).toBe(COUNT);
      expect(proxy.requests.filter(isList)).toEqual([]);
      const watches = proxy.requests.filter((r) => r.includes('watch=1'));
      expect(watches).toHaveLength(1);
      expect(watches[0]).toMatch(/resourceVersionMatch=NotOlderThan/);
      expect(watches[0]).toMatch(/allowWatchBookmarks=true/);
      await transport.create(ConfigMap, { metadata: { name: 'late', namespace: env.namespace } });
      await eventually(() => expect(reflector.store.get(`${env.namespace}/late`)).toBeDefined());
      expect(proxy.requests.filter((r) => r.includes('watch=1'))).toHaveLength(1);
      await transport.delete(ConfigMap, { namespace: env.namespace, name: 'late' });
    } finally {
      await reflector.stop();
    }
  });

  it('falls back to paginated LISTs when the server refuses watch-list, then watches', async () => {
    proxy.requests.length = 0;
    proxy.refuseWatchList = true;
    const reflector = await syncedReflector(100);
    try {
      expect(reflector.store.size).toBe(COUNT);
      expect(proxy.requests.filter(isWatchList)).toHaveLength(1); // asked once, refused
      const lists = proxy.requests.filter(isList);
      expect(lists.length).toBe(Math.ceil(COUNT / 100));
      expect(lists.every((r) => r.includes('limit=100'))).toBe(true);
      await transport.create(ConfigMap, { metadata: { name: 'late2', namespace: env.namespace } });
      await eventually(() => expect(reflector.store.get(`${env.namespace}/late2`)).toBeDefined());
      expect(reflector.phase()).toBe('Watching');
      expect(proxy.requests.filter(isWatchList)).toHaveLength(1);
    } finally {
      await reflector.stop();
    }
  });
});
