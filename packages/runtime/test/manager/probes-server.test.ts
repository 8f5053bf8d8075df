import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { formatBindAddress, parseBindAddress } from '../../src/manager/cli/bind-address.js';
import { MetricsRegistry } from '../../src/manager/metrics-registry.js';
import { ProbesServer } from '../../src/manager/probes-server.js';
import { sample } from './prom-text.js';

let servers: ProbesServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
});

function server(options: ConstructorParameters<typeof ProbesServer>[0]): ProbesServer {
  const s = new ProbesServer(options);
  servers.push(s);
  return s;
}

async function fetchText(port: number | undefined, path: string) {
  if (port === undefined) throw new Error('endpoint not listening');
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

describe('parseBindAddress', () => {
  it('reads controller-runtime style addresses', () => {
    expect(parseBindAddress(':8080')).toEqual({ host: undefined, port: 8080 });
    expect(parseBindAddress('127.0.0.1:8081')).toEqual({ host: '127.0.0.1', port: 8081 });
    expect(parseBindAddress('[::1]:9090')).toEqual({ host: '::1', port: 9090 });
    expect(parseBindAddress(':0')).toEqual({ host: undefined, port: 0 });
    expect(parseBindAddress('0')).toBeUndefined();
    expect(parseBindAddress('')).toBeUndefined();
    expect(formatBindAddress({ host: '::1', port: 1 })).toBe('[::1]:1');
  });

  it('rejects malformed addresses', () => {
    expect(() => parseBindAddress('8080')).toThrow(/invalid bind address "8080"/);
    expect(() => parseBindAddress('localhost')).toThrow(/expected \[host\]:port/);
    expect(() => parseBindAddress(':99999')).toThrow(/out of range/);
  });
});

describe('ProbesServer probes', () => {
  it('answers /readyz 503 until its check passes, then 200 ok', async () => {
    let synced = false;
    const probes = server({ healthProbeBindAddress: '127.0.0.1:0' });
    probes.addReadyCheck('cache-sync', () => {
      if (!synced) throw new Error('caches not synced');
    });
    probes.addReadyCheck('ping', () => true);
    const ports = await probes.start();
    expect(ports.probes).toBeGreaterThan(0);
    expect(ports.metrics).toBeUndefined();

    const before = await fetchText(ports.probes, '/readyz');
    expect(before.status).toBe(503);
    expect(before.body).toContain('[-]cache-sync failed: reason withheld');
    expect(before.body).toContain('[+]ping ok');
    expect(before.body).toContain('readyz check failed');

    const verbose = await fetchText(ports.probes, '/readyz?verbose');
    expect(verbose.status).toBe(503);
    expect(verbose.body).toContain('[-]cache-sync failed: caches not synced');

    synced = true;
    const after = await fetchText(ports.probes, '/readyz');
    expect(after).toMatchObject({ status: 200, body: 'ok' });
    const afterVerbose = await fetchText(ports.probes, '/readyz?verbose');
    expect(afterVerbose.status).toBe(200);
    expect(afterVerbose.body).toBe('[+]cache-sync ok\n[+]ping ok\nreadyz check passed\n');
  });

  it('serves /healthz with its own checks; false, rejections and exclusions count', async () => {
    const probes = server({ healthProbeBindAddress: '127.0.0.1:0' });
    let healthy = true;
    probes.addHealthCheck('ping', () => {});
    probes.addHealthCheck('loop', () => healthy);
    probes.addHealthCheck('async', async () => {});
    probes.addReadyCheck('never', () => Promise.reject(new Error('nope')));
    const { probes: port } = await probes.start();

    expect(await fetchText(port, '/healthz')).toMatchObject({ status: 200, body: 'ok' });
    healthy = false;
    const failing = await fetchText(port, '/healthz?verbose=1');
    expect(failing.status).toBe(503);
    expect(failing.body).toContain('[-]loop failed: check returned false');
    expect(failing.body).toContain('[+]async ok');
    expect((await fetchText(port, '/healthz?exclude=loop')).status).toBe(200);
    // One check on its own.
    expect((await fetchText(port, '/healthz/ping')).status).toBe(200);
    expect((await fetchText(port, '/healthz/loop')).status).toBe(503);
    expect((await fetchText(port, '/healthz/unknown')).status).toBe(404);
    // Ready checks are separate.
    expect((await fetchText(port, '/readyz')).status).toBe(503);
    // No metrics here.
    expect((await fetchText(port, '/metrics')).status).toBe(404);
  });

  it('fails a check that hangs past the timeout', async () => {
    const probes = server({ healthProbeBindAddress: '127.0.0.1:0', checkTimeoutMs: 50 });
    probes.addHealthCheck('stuck', () => new Promise(() => {}));
    const { probes: port } = await probes.start();
    const res = await fetchText(port, '/healthz?verbose');
    expect(res.status).toBe(503);
    expect(res.body).toContain('[-]stuck failed: no answer within 50 ms');
  });

  it('answers 200 with no checks registered, and refuses other methods', async () => {
    const probes = server({ healthProbeBindAddress: '127.0.0.1:0' });
    const { probes: port } = await probes.start();
    expect(await fetchText(port, '/readyz')).toMatchObject({ status: 200, body: 'ok' });
    const post = await fetch(`http://127.0.0.1:${port}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
  });

  it('sends no Date header (its formatting would page in ICU for good)', async () => {
    const probes = server({ healthProbeBindAddress: '127.0.0.1:0' });
    const { probes: port } = await probes.start();
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('date')).toBeNull();
  });

  it('rejects bad check names', () => {
    const probes = server({ healthProbeBindAddress: '0' });
    expect(() => probes.addHealthCheck('a b', () => {})).toThrow(/invalid check name/);
  });
});

describe('ProbesServer metrics', () => {
  it('serves the registry on /metrics on a separate address with prom-client content type', async () => {
    const metrics = new MetricsRegistry();
    metrics.controllerMetrics('widgets').reconciled('success', 0.1);
    metrics.setLeader('lease', true);
    const probes = server({
      metrics,
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
    });
    // Equal addresses share one server.
    const ports = await probes.start();
    expect(ports.metrics).toBeGreaterThan(0);
    expect(ports.probes).toBe(ports.metrics);

    const res = await fetchText(ports.metrics, '/metrics');
    expect(res.status).toBe(200);
    expect(res.type).toBe(metrics.contentType);
    expect(
      sample(res.body, 'controller_runtime_reconcile_total', { controller: 'widgets', result: 'success' }),
    ).toBe(1);
    expect(sample(res.body, 'leader_election_master_status', { name: 'lease' })).toBe(1);
    expect((await fetchText(ports.probes, '/healthz')).status).toBe(200);
  });

  it('runs two servers for two addresses, each serving only its endpoints', async () => {
    const metrics = new MetricsRegistry();
    const probes = server({ metrics, metricsBindAddress: '127.0.0.1:0', healthProbeBindAddress: ':0' });
    const ports = await probes.start();
    expect(ports.metrics).not.toBe(ports.probes);
    expect((await fetchText(ports.metrics, '/metrics')).status).toBe(200);
    expect((await fetchText(ports.metrics, '/healthz')).status).toBe(404);
    expect((await fetchText(ports.probes, '/healthz')).status).toBe(200);
    expect((await fetchText(ports.probes, '/metrics')).status).toBe(404);
  });

  it('"0" disables an endpoint', async () => {
    const metrics = new MetricsRegistry();
    const probes = server({ metrics, metricsBindAddress: '0', healthProbeBindAddress: '127.0.0.1:0' });
    const ports = await probes.start();
    expect(ports).toEqual({ probes: expect.any(Number) });
    const none = server({ metrics, metricsBindAddress: '0', healthProbeBindAddress: '0' });
    expect(await none.start()).toEqual({});
  });

  it('stops listening on stop()', async () => {
    const probes = server({ healthProbeBindAddress: '127.0.0.1:0' });
    const { probes: port } = await probes.start();
    await fetchText(port, '/healthz'); // leaves a keep-alive connection open
    await probes.stop();
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    await probes.stop(); // idempotent
  });

  it('rejects start() when the port is taken', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const probes = server({ healthProbeBindAddress: `127.0.0.1:${port}` });
      await expect(probes.start()).rejects.toThrow(/cannot listen on 127\.0\.0\.1:\d+/);
    } finally {
      blocker.close();
    }
  });
});

describe('ProbesServer debug endpoint', () => {
  it('is off by default', async () => {
    const probes = server({ healthProbeBindAddress: '127.0.0.1:0' });
    probes.setDebugProvider(() => ({ queues: [] }));
    const { probes: port } = await probes.start();
    expect((await fetchText(port, '/debug/queues')).status).toBe(404);
  });

  it('serves the provider as JSON with the probes, or on its own address', async () => {
    const provider = (q: URLSearchParams) => ({ queues: [{ name: 'widgets', depth: 2 }], key: q.get('key') });
    const withProbes = server({ healthProbeBindAddress: '127.0.0.1:0', enableDebugEndpoint: true });
    withProbes.setDebugProvider(provider);
    const a = await withProbes.start();
    expect(a.debug).toBe(a.probes);
    const res = await fetchText(a.debug, '/debug/queues?key=ns/w1');
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/json');
    expect(JSON.parse(res.body)).toEqual({ queues: [{ name: 'widgets', depth: 2 }], key: 'ns/w1' });

    const apart = server({
      healthProbeBindAddress: '127.0.0.1:0',
      enableDebugEndpoint: true,
      debugBindAddress: '127.0.0.1:0',
    });
    const b = await apart.start();
    expect((await fetchText(b.debug, '/debug/queues')).status).toBe(404); // no provider yet
    apart.setDebugProvider(provider);
    expect((await fetchText(b.debug, '/debug/queues')).status).toBe(200);
  });

  it('refuses to enable the debug endpoint with nowhere to serve it', () => {
    expect(
      () =>
        new ProbesServer({ healthProbeBindAddress: '0', enableDebugEndpoint: true, debugBindAddress: '0' }),
    ).toThrow(/debug endpoint is enabled but has no address/);
  });

  it('refuses secure metrics on an address shared with the probes', () => {
    const metricsSecure = {} as NonNullable<ConstructorParameters<typeof ProbesServer>[0]>['metricsSecure'];
    expect(
      () =>
        new ProbesServer({
          metrics: new MetricsRegistry(),
          metricsBindAddress: ':8080',
          healthProbeBindAddress: ':8080',
          metricsSecure,
        }),
    ).toThrow(/secure metrics need an address of their own: :8080 also serves probes/);
  });
});
