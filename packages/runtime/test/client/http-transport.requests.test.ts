import { describe, expect, it } from 'vitest';
import { ApiError, isConflict, isTooManyRequests } from '../../src/api/errors.js';
import { ConfigMap, Pod } from '../../src/client/builtin.js';
import { type RequestMetric, RequestTimeoutError } from '../../src/transport/http-transport.js';
import { sendJson, Widget } from './local-server.js';
import { cm, setup } from './transport-kit.js';

const protobufOn = { protobuf: true };
const release = (gitVersion: string) => ({ major: '1', minor: gitVersion.split('.')[1], gitVersion });

describe('HttpTransport requests', () => {
  it('GETs an object with the kubeconfig credentials; a built-in kind accepts protobuf, and a JSON answer is read as JSON', async () => {
    const { server, transport } = await setup(
      (req, res) =>
        req.url === '/version' ? sendJson(res, 200, release('v1.35.2')) : sendJson(res, 200, cm('a')),
      protobufOn,
    );
    await expect(transport.get(ConfigMap, { namespace: 'ns', name: 'a' })).resolves.toEqual(cm('a'));
    const [version, req] = server.requests;
    expect(version?.url).toBe('/version');
    expect(req?.method).toBe('GET');
    expect(req?.url).toBe('/api/v1/namespaces/ns/configmaps/a');
    expect(req?.headers.authorization).toBe('Bearer secret-token');
    expect(req?.headers.accept).toBe('application/vnd.kubernetes.protobuf, application/json');
    expect(req?.headers['user-agent']).toMatch(/^capstan\//);
  });

  it('accepts only JSON from a server newer than the protobuf schema, or without /version', async () => {
    for (const answer of [release('v1.99.0'), undefined]) {
      const { server, transport } = await setup(
        (req, res) =>
          req.url === '/version' && answer
            ? sendJson(res, 200, answer)
            : sendJson(res, req.url === '/version' ? 404 : 200, cm('a')),
        protobufOn,
      );
      await transport.get(ConfigMap, { namespace: 'ns', name: 'a' });
      expect(server.requests.at(-1)?.headers.accept).toBe('application/json');
    }
  });

  it('reads a kind as JSON once its protobuf cannot be read: the GET is asked again, and so are later ones', async () => {
    const { server, transport } = await setup((req, res) => {
      if (req.url === '/version') return sendJson(res, 200, release('v1.35.0'));
      if (!req.headers.accept?.includes('protobuf')) return sendJson(res, 200, cm('a'));
      // An object with a field number the schema lacks, as a newer server would send it.
      const body = Buffer.concat([
        Buffer.from('k8s\0', 'latin1'),
        Buffer.from([0x0a, 0x0f, 0x0a, 0x02, 0x76, 0x31, 0x12, 0x09]),
        Buffer.from('ConfigMap'),
        Buffer.from([0x12, 0x03, 0xa8, 0x06, 0x01]),
      ]);
      res.writeHead(200, {
        'Content-Type': 'application/vnd.kubernetes.protobuf',
        'Content-Length': body.length,
      });
      res.end(body);
    }, protobufOn);
    await expect(transport.get(ConfigMap, { namespace: 'ns', name: 'a' })).resolves.toEqual(cm('a'));
    await transport.list(ConfigMap, { namespace: 'ns' });
    expect(server.requests.map((r) => r.headers.accept?.startsWith('application/vnd') ?? false)).toEqual([
      false,
      true,
      false,
      false,
    ]);
  });

  it('accepts only JSON for a custom resource and for a subresource', async () => {
    const { server, transport } = await setup(
      (req, res) =>
        req.url === '/version' ? sendJson(res, 200, release('v1.35.0')) : sendJson(res, 200, cm('a')),
      protobufOn,
    );
    await transport.get(Widget, { namespace: 'ns', name: 'a' });
    await transport.get(ConfigMap, { namespace: 'ns', name: 'a' }, 'status');
    expect(server.requests.map((r) => [r.url, r.headers.accept])).toEqual([
      ['/apis/example.dev/v1/namespaces/ns/widgets/a', 'application/json'],
      ['/api/v1/namespaces/ns/configmaps/a/status', 'application/json'],
    ]);
  });

  it('accepts only JSON with protobuf turned off, and asks no /version', async () => {
    const { server, transport } = await setup((_req, res) => sendJson(res, 200, cm('a')), {
      protobuf: false,
    });
    await transport.get(ConfigMap, { namespace: 'ns', name: 'a' });
    expect(server.requests.map((r) => [r.url, r.headers.accept])).toEqual([
      ['/api/v1/namespaces/ns/configmaps/a', 'application/json'],
    ]);
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
