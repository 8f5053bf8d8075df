/**
 * The reflector's two list paths against a real kube-apiserver: watch-list where the server has it
 * (1.35 does), and paginated lists behind a proxy that refuses watch-list the way a server without
 * it does: request validation answers 422 Invalid before any watch opens (apimachinery's
 * `ValidateListOptions`: "sendInitialEvents is forbidden for watch unless the WatchList feature gate
 * is enabled"; servers before 1.27 forbid `resourceVersionMatch` on a watch the same way).
 */
import { useControlPlane } from '@capstan/envtest/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Reflector } from '../../src/cache/index.js';
import { ConfigMap, HttpTransport } from '../../src/client/index.js';
import { eventually } from '../../src/testing/index.js';
import { ApiProxy, answerStatus, type ProxiedRequest } from '../testing/api-proxy.js';

const env = useControlPlane('watchlist');
const COUNT = 250;

const refusal =
  'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled';
const isWatchListRequest = (r: ProxiedRequest) =>
  r.query.get('watch') !== null && r.query.get('sendInitialEvents') === 'true';

const proxy = new ApiProxy();
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
  transport = new HttpTransport(await proxy.start(env.kubeConfig));
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
    proxy.clear();
    proxy.intercept = undefined;
    const reflector = await syncedReflector(100);
    try {
      expect(reflector.store.size).toBe(COUNT);
      expect(proxy.requests.filter(isList)).toEqual([]);
      const watches = proxy.requests.filter((r) => r.includes('watch=1'));
      expect(watches).toHaveLength(1);
      expect(watches[0]).toMatch(/resourceVersionMatch=NotOlderThan/);
      // A consistent read, as client-go's first watch-list: no resourceVersion (not '0').
      expect(watches[0]).not.toMatch(/[?&]resourceVersion=/);
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
    proxy.clear();
    proxy.intercept = (r, res) => {
      if (!isWatchListRequest(r)) return false;
      answerStatus(res, 422, 'Invalid', refusal);
      return true;
    };
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
      await transport.delete(ConfigMap, { namespace: env.namespace, name: 'late2' });
    } finally {
      await reflector.stop();
    }
  });

  it('after a 410 in the streamed list, streams again at once with a consistent read', async () => {
    proxy.clear();
    let expired = false;
    proxy.intercept = (r, res) => {
      if (expired || !isWatchListRequest(r)) return false;
      expired = true;
      // What a server says when the stream's start was compacted away meanwhile.
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410 };
      res.end(
        `${JSON.stringify({ type: 'ERROR', object: { ...status, message: 'too old resource version' } })}\n`,
      );
      return true;
    };
    const reflector = await syncedReflector(100);
    try {
      expect(reflector.store.size).toBe(COUNT);
      const streams = proxy.seen.filter(isWatchListRequest);
      expect(streams).toHaveLength(2);
      expect(streams.every((r) => !r.query.has('resourceVersion'))).toBe(true);
      // At once, not after the 800 ms backoff of a failure; and no LIST.
      expect((streams[1] as ProxiedRequest).at - (streams[0] as ProxiedRequest).at).toBeLessThan(700);
      expect(proxy.requests.filter(isList)).toEqual([]);
    } finally {
      await reflector.stop();
    }
  });

  it('after a stream that ends before its bookmark, lists once (the latest state), then watches', async () => {
    proxy.clear();
    let cut = false;
    proxy.intercept = (r, res) => {
      if (cut || !isWatchListRequest(r)) return false;
      cut = true;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(); // the connection ends before the initial-events-end bookmark
      return true;
    };
    const reflector = await syncedReflector(100);
    try {
      expect(reflector.store.size).toBe(COUNT);
      expect(proxy.seen.filter(isWatchListRequest)).toHaveLength(1);
      const lists = proxy.requests.filter(isList);
      expect(lists.length).toBe(Math.ceil(COUNT / 100));
      expect(lists[0]).not.toMatch(/[?&]resourceVersion=/); // the latest state
      // Then a plain watch from the list's resourceVersion carries the changes.
      await transport.create(ConfigMap, { metadata: { name: 'late3', namespace: env.namespace } });
      await eventually(() => expect(reflector.store.get(`${env.namespace}/late3`)).toBeDefined());
      expect(reflector.phase()).toBe('Watching');
      await transport.delete(ConfigMap, { namespace: env.namespace, name: 'late3' });
    } finally {
      await reflector.stop();
    }
  });
});
