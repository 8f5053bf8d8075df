import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigMap, Pod } from '../../src/client/builtin.js';
import { ApiError, isConflict, isTooManyRequests } from '../../src/client/errors.js';
import { HttpTransport, type RequestMetric, RequestTimeoutError } from '../../src/client/http-transport.js';
import { WatchIdleTimeoutError } from '../../src/client/http-watch.js';
import type { WatchCallbacks } from '../../src/client/transport.js';
import type { KubeObject, WatchEvent } from '../../src/client/types.js';
import {
  type LocalServer,
  type RecordedRequest,
  sendJson,
  sleep,
  startLocalServer,
  startStream,
  watchLine,
} from './local-server.js';

const cm = (name: string, rv = '1') => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', resourceVersion: rv },
});

function watchRecorder() {
  const events: WatchEvent[] = [];
  const closes: Array<Error | undefined> = [];
  let onClosed: (err: Error | undefined) => void = () => {};
  const closed = new Promise<Error | undefined>((resolve) => {
    onClosed = resolve;
  });
  const callbacks: WatchCallbacks<KubeObject> = {
    onEvent: (e) => events.push(e),
    onClose: (err) => {
      closes.push(err);
      onClosed(err);
    },
  };
  return { events, closes, closed, callbacks };
}

let server: LocalServer | undefined;
let transport: HttpTransport | undefined;
afterEach(async () => {
  transport?.close();
  await server?.close();
  server = undefined;
  transport = undefined;
});

async function setup(
  handler: (req: http.IncomingMessage, res: http.ServerResponse, recorded: RecordedRequest) => void,
  options: ConstructorParameters<typeof HttpTransport>[1] = {},
) {
  server = await startLocalServer(handler);
  transport = new HttpTransport(server.kubeConfig, options);
  return { server, transport };
}

describe('HttpTransport requests', () => {
  it('GETs an object with the kubeconfig credentials and JSON headers', async () => {
    const { server, transport } = await setup((_req, res) => sendJson(res, 200, cm('a')));
    await expect(transport.get(ConfigMap, { namespace: 'ns', name: 'a' })).resolves.toEqual(cm('a'));
    const [req] = server.requests;
    expect(req?.method).toBe('GET');
    expect(req?.url).toBe('/api/v1/namespaces/ns/configmaps/a');
    expect(req?.headers.authorization).toBe('Bearer secret-token');
    expect(req?.headers.accept).toBe('application/json');
    expect(req?.headers['user-agent']).toMatch(/^capstan\//);
  });

  it('GETs a subresource', async () => {
    const { server, transport } = await setup((_req, res) => sendJson(res, 200, cm('a')));
    await transport.get(ConfigMap, { namespace: 'ns', name: 'a' }, 'status');
    expect(server.requests[0]?.url).toBe('/api/v1/namespaces/ns/configmaps/a/status');
  });

  it('lists with the query, fills apiVersion/kind of items, returns resourceVersion and continue', async () => {
    const { server, transport } = await setup((_req, res) =>
      sendJson(res, 200, {
        kind: 'ConfigMapList',
        apiVersion: 'v1',
        metadata: { resourceVersion: '77', continue: 'next-page' },
        items: [{ metadata: { name: 'a', namespace: 'ns' } }],
      }),
    );
    const page = await transport.list(ConfigMap, { namespace: 'ns', labelSelector: 'app=x', limit: 1 });
    expect(server.requests[0]?.url).toBe('/api/v1/namespaces/ns/configmaps?labelSelector=app%3Dx&limit=1');
    expect(page).toEqual({
      items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } }],
      resourceVersion: '77',
      continue: 'next-page',
    });
  });

  it('treats a null items list as empty and leaves continue out when absent', async () => {
    const { transport } = await setup((_req, res) =>
      sendJson(res, 200, { metadata: { resourceVersion: '5' }, items: null }),
    );
    expect(await transport.list(Pod)).toEqual({ items: [], resourceVersion: '5' });
  });

  it('creates (POST to the collection) and updates (PUT to the object, status subresource)', async () => {
    const { server, transport } = await setup((req, res, r) =>
      sendJson(res, req.method === 'POST' ? 201 : 200, JSON.parse(r.body)),
    );
    await transport.create(ConfigMap, cm('a'), { fieldManager: 'me', dryRun: true });
    await transport.update(ConfigMap, cm('a', '5'), { subresource: 'status' });
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /api/v1/namespaces/ns/configmaps?fieldManager=me&dryRun=All',
      'PUT /api/v1/namespaces/ns/configmaps/a/status',
    ]);
    expect(server.requests[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(server.requests[1]?.body ?? '')).toEqual(cm('a', '5'));
  });

  it('patches with the Content-Type of the patch type; force only for apply', async () => {
    const { server, transport } = await setup((_req, res) => sendJson(res, 200, cm('a')));
    const key = { namespace: 'ns', name: 'a' };
    await transport.patch(ConfigMap, key, 'merge', { data: { a: '1' } }, { force: true });
    await transport.patch(ConfigMap, key, 'json', [{ op: 'add', path: '/data/a', value: '1' }]);
    await transport.patch(ConfigMap, key, 'strategic', { data: { a: '1' } });
    await transport.patch(ConfigMap, key, 'apply', cm('a'), {
      fieldManager: 'ctl',
      force: true,
      subresource: 'status',
    });
    expect(server.requests.map((r) => [r.url, r.headers['content-type']])).toEqual([
      ['/api/v1/namespaces/ns/configmaps/a', 'application/merge-patch+json'],
      ['/api/v1/namespaces/ns/configmaps/a', 'application/json-patch+json'],
      ['/api/v1/namespaces/ns/configmaps/a', 'application/strategic-merge-patch+json'],
      [
        '/api/v1/namespaces/ns/configmaps/a/status?fieldManager=ctl&force=true',
        'application/apply-patch+yaml',
      ],
    ]);
    expect(JSON.parse(server.requests[1]?.body ?? '')).toEqual([{ op: 'add', path: '/data/a', value: '1' }]);
  });

  it('DELETEs with a DeleteOptions body and POSTs subresources', async () => {
    const { server, transport } = await setup((_req, res) =>
      sendJson(res, 200, { kind: 'Status', status: 'Success' }),
    );
    await transport.delete(
      ConfigMap,
      { namespace: 'ns', name: 'a' },
      { propagationPolicy: 'Foreground', preconditions: { uid: 'u' } },
    );
    await transport.createSubresource(Pod, { namespace: 'ns', name: 'p' }, 'eviction', { kind: 'Eviction' });
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'DELETE /api/v1/namespaces/ns/configmaps/a',
      'POST /api/v1/namespaces/ns/pods/p/eviction',
    ]);
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({
      kind: 'DeleteOptions',
      apiVersion: 'v1',
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u' },
    });
  });

  it('maps a Status answer to an ApiError, with Retry-After', async () => {
    const { transport } = await setup((req, res) => {
      if (req.method === 'PUT') {
        sendJson(res, 409, {
          kind: 'Status',
          status: 'Failure',
          code: 409,
          reason: 'Conflict',
          message: 'modified',
        });
      } else {
        sendJson(
          res,
          429,
          { kind: 'Status', status: 'Failure', code: 429, reason: 'TooManyRequests', message: 'pdb' },
          { 'Retry-After': '7' },
        );
      }
    });
    const conflict = await transport.update(ConfigMap, cm('a')).catch((e: unknown) => e);
    expect(isConflict(conflict)).toBe(true);
    expect((conflict as ApiError).message).toBe('modified');
    const throttled = await transport
      .createSubresource(Pod, { namespace: 'ns', name: 'p' }, 'eviction', {})
      .catch((e: unknown) => e);
    expect(isTooManyRequests(throttled)).toBe(true);
    expect((throttled as ApiError).retryAfterSeconds).toBe(7);
  });

  it('synthesizes a Status when an error body is not JSON', async () => {
    const { transport } = await setup((_req, res) => {
      res.writeHead(502, { 'Content-Type': 'text/html' });
      res.end('<h1>Bad gateway</h1>');
    });
    const err = await transport.get(ConfigMap, { namespace: 'ns', name: 'a' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(502);
    expect((err as ApiError).message).toContain('Bad gateway');
  });

  it('gives up on a request after requestTimeoutMs', async () => {
    const metrics: RequestMetric[] = [];
    const { transport } = await setup(() => {}, { requestTimeoutMs: 150, onRequest: (m) => metrics.push(m) });
    const started = Date.now();
    await expect(transport.get(ConfigMap, { namespace: 'ns', name: 'a' })).rejects.toBeInstanceOf(
      RequestTimeoutError,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(metrics).toMatchObject([{ method: 'GET', code: '<error>' }]);
  });

  it('reports every request to onRequest with method, code and host', async () => {
    const metrics: RequestMetric[] = [];
    const { server, transport } = await setup(
      (req, res) =>
        req.method === 'GET'
          ? sendJson(res, 200, cm('a'))
          : sendJson(res, 404, { kind: 'Status', code: 404 }),
      { onRequest: (m) => metrics.push(m) },
    );
    await transport.get(ConfigMap, { namespace: 'ns', name: 'a' });
    await transport.delete(ConfigMap, { namespace: 'ns', name: 'a' }).catch(() => {});
    expect(metrics.map(({ method, code, host }) => ({ method, code, host }))).toEqual([
      { method: 'GET', code: '200', host: server.host },
      { method: 'DELETE', code: '404', host: server.host },
    ]);
    for (const m of metrics) expect(m.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('reuses one connection for sequential requests (keep-alive)', async () => {
    const { server, transport } = await setup((_req, res) => sendJson(res, 200, cm('a')));
    for (let i = 0; i < 3; i++) await transport.get(ConfigMap, { namespace: 'ns', name: 'a' });
    const ports = new Set(server.requests.map((r) => r.remotePort));
    expect(server.requests).toHaveLength(3);
    expect(ports.size).toBe(1);
  });

  it('rejects with the network error when the server is gone', async () => {
    const { server, transport } = await setup(() => {});
    await server.close();
    await expect(transport.get(ConfigMap, { namespace: 'ns', name: 'a' })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });
});

describe('HttpTransport watch', () => {
  it('asks for a watch and delivers events split across chunks in order, then a clean close', async () => {
    const body =
      watchLine('ADDED', cm('a', '1')) +
      watchLine('MODIFIED', cm('a', '2')) +
      watchLine('DELETED', cm('a', '3'));
    const { server, transport } = await setup(async (_req, res) => {
      startStream(res);
      // Odd chunk sizes, so lines are split at arbitrary places.
      for (let i = 0; i < body.length; i += 13) {
        res.write(body.slice(i, i + 13));
        await sleep(1);
      }
      res.end();
    });
    const rec = watchRecorder();
    await transport.watch(
      ConfigMap,
      {
        namespace: 'ns',
        resourceVersion: '0',
        allowWatchBookmarks: true,
        timeoutSeconds: 60,
        labelSelector: 'a=b',
      },
      rec.callbacks,
    );
    expect(await rec.closed).toBeUndefined();
    expect(server.requests[0]?.url).toBe(
      '/api/v1/namespaces/ns/configmaps?watch=1&labelSelector=a%3Db&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=60',
    );
    expect(rec.events).toEqual([
      { type: 'ADDED', object: cm('a', '1') },
      { type: 'MODIFIED', object: cm('a', '2') },
      { type: 'DELETED', object: cm('a', '3') },
    ]);
    expect(rec.closes).toEqual([undefined]);
  });

  it('passes ERROR events through with their Status', async () => {
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 410,
      reason: 'Expired',
      message: 'too old resource version',
    };
    const { transport } = await setup((_req, res) => {
      startStream(res);
      res.end(watchLine('ERROR', status));
    });
    const rec = watchRecorder();
    await transport.watch(Pod, {}, rec.callbacks);
    await rec.closed;
    expect(rec.events).toEqual([{ type: 'ERROR', status }]);
  });

  it('rejects (without calling onClose) when the server refuses the watch', async () => {
    const { transport } = await setup((_req, res) =>
      sendJson(res, 403, { kind: 'Status', code: 403, reason: 'Forbidden', message: 'no' }),
    );
    const rec = watchRecorder();
    const err = await transport.watch(Pod, {}, rec.callbacks).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(403);
    await sleep(20);
    expect(rec.closes).toEqual([]);
  });

  it('ends a silent watch with WatchIdleTimeoutError and drops the connection', async () => {
    let serverSawClose = false;
    const { transport } = await setup(
      (_req, res) => {
        startStream(res); // accepted, then nothing at all: a half-open connection looks like this
        res.on('close', () => {
          serverSawClose = true;
        });
      },
      { watchIdleTimeoutMs: 200 },
    );
    const rec = watchRecorder();
    const started = Date.now();
    await transport.watch(Pod, {}, rec.callbacks);
    const err = await rec.closed;
    expect(err).toBeInstanceOf(WatchIdleTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    await sleep(50);
    expect(serverSawClose).toBe(true);
    expect(rec.closes).toHaveLength(1);
  });

  it('counts any byte as a sign of life: bookmarks keep a watch open past the idle timeout', async () => {
    const { transport } = await setup(async (_req, res) => {
      startStream(res);
      for (let i = 0; i < 6; i++) {
        await sleep(80);
        res.write(
          watchLine('BOOKMARK', { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: String(i) } }),
        );
      }
      // ...and then silence.
    });
    const rec = watchRecorder();
    await transport.watch(Pod, { idleTimeoutMs: 200 }, rec.callbacks);
    const err = await rec.closed;
    expect(rec.events).toHaveLength(6);
    expect(err).toBeInstanceOf(WatchIdleTimeoutError);
  });

  it('takes the idle timeout of the watch over the transport default; 0 disables it', async () => {
    const { transport } = await setup((_req, res) => startStream(res), { watchIdleTimeoutMs: 100 });
    const rec = watchRecorder();
    const handle = await transport.watch(Pod, { idleTimeoutMs: 0 }, rec.callbacks);
    await sleep(300);
    expect(rec.closes).toEqual([]);
    handle.stop();
    expect(rec.closes).toEqual([undefined]);
  });

  it('has no whole-request deadline: a stream outlives requestTimeoutMs', async () => {
    const { transport } = await setup(
      async (_req, res) => {
        startStream(res);
        for (let i = 0; i < 5; i++) {
          await sleep(60);
          res.write(watchLine('ADDED', cm(`c${i}`)));
        }
        res.end();
      },
      { requestTimeoutMs: 100, watchIdleTimeoutMs: 1_000 },
    );
    const rec = watchRecorder();
    await transport.watch(ConfigMap, { namespace: 'ns' }, rec.callbacks);
    expect(await rec.closed).toBeUndefined();
    expect(rec.events).toHaveLength(5);
  });

  it('stop() ends the watch, calls onClose once without error, and delivers nothing after', async () => {
    let serverSawClose = false;
    const { transport } = await setup(async (_req, res) => {
      startStream(res);
      res.on('close', () => {
        serverSawClose = true;
      });
      for (let i = 0; i < 100 && !res.destroyed; i++) {
        res.write(watchLine('MODIFIED', cm('a', String(i))));
        await sleep(10);
      }
    });
    const rec = watchRecorder();
    const handle = await transport.watch(ConfigMap, { namespace: 'ns' }, rec.callbacks);
    await sleep(60);
    handle.stop();
    handle.stop();
    const seen = rec.events.length;
    expect(seen).toBeGreaterThan(0);
    expect(rec.closes).toEqual([undefined]);
    await sleep(60);
    expect(rec.events).toHaveLength(seen);
    expect(rec.closes).toEqual([undefined]);
    expect(serverSawClose).toBe(true);
  });

  it('reports a connection cut mid-stream to onClose as an error', async () => {
    const { transport } = await setup(async (_req, res) => {
      startStream(res);
      res.write(watchLine('ADDED', cm('a')));
      await sleep(30);
      res.socket?.destroy();
    });
    const rec = watchRecorder();
    await transport.watch(ConfigMap, { namespace: 'ns' }, rec.callbacks);
    const err = await rec.closed;
    expect(err).toBeInstanceOf(Error);
    expect(rec.events).toEqual([{ type: 'ADDED', object: cm('a') }]);
    expect(rec.closes).toHaveLength(1);
  });

  it('ends the watch with the error when a line is malformed or a callback throws', async () => {
    const { transport } = await setup((req, res) => {
      startStream(res);
      if (req.url?.includes('pods')) res.write('{"type":"ADDED", garbage\n');
      else res.write(watchLine('ADDED', cm('a')) + watchLine('ADDED', cm('b')));
    });
    const garbled = watchRecorder();
    await transport.watch(Pod, {}, garbled.callbacks);
    expect((await garbled.closed)?.name).toBe('WatchDecodeError');

    const boom = new Error('handler failed');
    const rec = watchRecorder();
    const events: WatchEvent[] = [];
    await transport.watch(
      ConfigMap,
      { namespace: 'ns' },
      {
        onEvent: (e) => {
          events.push(e);
          throw boom;
        },
        onClose: rec.callbacks.onClose,
      },
    );
    expect(await rec.closed).toBe(boom);
    expect(events).toHaveLength(1);
  });

  it('reports the watch to onRequest when the server accepts it', async () => {
    const metrics: RequestMetric[] = [];
    const { transport } = await setup((_req, res) => startStream(res), { onRequest: (m) => metrics.push(m) });
    const handle = await transport.watch(Pod, {}, watchRecorder().callbacks);
    expect(metrics).toMatchObject([{ method: 'GET', code: '200' }]);
    handle.stop();
  });
});
