import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import type { WatchEvent } from '../../src/api/types.js';
import { ConfigMap, Pod } from '../../src/client/builtin.js';
import { type RequestMetric } from '../../src/transport/http-transport.js';
import { WatchIdleTimeoutError } from '../../src/transport/http-watch.js';
import { sendJson, sleep, startStream, watchLine } from './local-server.js';
import { cm, setup, watchRecorder } from './transport-kit.js';

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
