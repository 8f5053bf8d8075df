import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { WebhookServingCert } from '@capstan/envtest';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigMap } from '../../../src/client/builtin.js';
import { KubeConfig } from '../../../src/kubeconfig/kube-config.js';
import { ConnectionPools } from '../../../src/transport/connection-pools.js';
import { HttpTransport } from '../../../src/transport/http-transport.js';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return (server.address() as AddressInfo).port;
}

async function tlsServer(handler: http.RequestListener) {
  const cert = await WebhookServingCert.create();
  const server = https.createServer(
    { cert: readFileSync(join(cert.certDir, 'tls.crt')), key: readFileSync(join(cert.certDir, 'tls.key')) },
    handler,
  );
  let handshakes = 0;
  let resumed = 0;
  server.on('secureConnection', (socket) => {
    handshakes++;
    if (socket.isSessionReused()) resumed++;
  });
  const port = await listen(server);
  return { port, ca: Buffer.from(cert.caPem), handshakes: () => handshakes, resumed: () => resumed };
}

const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } };
const answerConfigMap: http.RequestListener = (_req, res) => {
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify(configMap));
};

describe('the connection pool over TLS', () => {
  it('verifies the server against the CA and keeps one TLS connection for a run of requests', async () => {
    const server = await tlsServer(answerConfigMap);
    const pool = new ConnectionPools(true);
    closers.push(() => pool.close());
    const options = { ca: server.ca, rejectUnauthorized: true };
    const url = new URL(`https://127.0.0.1:${server.port}`);
    for (let i = 0; i < 5; i++) {
      const answer = await pool
        .for(options, url)
        .request({ method: 'GET', path: '/api/v1/namespaces/ns/configmaps/a', headers: {} });
      expect(JSON.parse(answer.body.toString())).toEqual(configMap);
    }
    expect(server.handshakes()).toBe(1);
  });

  it('resumes the TLS session on its next connections, and a pool for other material starts afresh', async () => {
    const server = await tlsServer(answerConfigMap);
    const pools = new ConnectionPools(true);
    closers.push(() => pools.close());
    const url = new URL(`https://127.0.0.1:${server.port}`);
    const get = (options: { ca: Buffer; rejectUnauthorized: boolean; servername?: string }) =>
      pools
        .for(options, url)
        .request({ method: 'GET', path: '/api/v1/namespaces/ns/configmaps/a', headers: {} });
    const options = { ca: server.ca, rejectUnauthorized: true };
    await get(options);
    // Three at once: the idle connection and two new ones, which resume the first one's session.
    const answers = await Promise.all([get(options), get(options), get(options)]);
    for (const answer of answers) expect(JSON.parse(answer.body.toString())).toEqual(configMap);
    expect(pools.for(options, url).handshakes).toEqual({ full: 1, resumed: 2 });
    expect([server.handshakes(), server.resumed()]).toEqual([3, 2]);
    // Other TLS material (here the server name checked): a new pool, which has no session to offer.
    const renamed = { ...options, servername: 'localhost' };
    await get(renamed);
    expect(pools.for(renamed, url).handshakes).toEqual({ full: 1, resumed: 0 });
    expect([server.handshakes(), server.resumed()]).toEqual([4, 2]);
  });

  it('refuses a server its CA did not sign, with the TLS error', async () => {
    const server = await tlsServer(answerConfigMap);
    const other = await WebhookServingCert.create();
    const pool = new ConnectionPools(true);
    closers.push(() => pool.close());
    const url = new URL(`https://127.0.0.1:${server.port}`);
    const request = pool
      .for({ ca: Buffer.from(other.caPem), rejectUnauthorized: true }, url)
      .request({ method: 'GET', path: '/', headers: {} });
    await expect(request).rejects.toMatchObject({ code: expect.stringMatching(/CERT|SIGNATURE|ISSUER/) });
  });
});

describe('HttpTransport behind a proxy', () => {
  it('sends its requests through the proxy (CONNECT) with node:https and the proxy agent', async () => {
    const server = await tlsServer(answerConfigMap);
    const tunnels: string[] = [];
    const proxy = http.createServer((_req, res) => res.writeHead(405).end());
    const tunnelSockets = new Set<net.Socket>();
    proxy.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
      tunnels.push(req.url ?? '');
      const [host, port] = (req.url ?? '').split(':');
      const upstream = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      tunnelSockets.add(client).add(upstream);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    const proxyPort = await listen(proxy);
    // Tunnels leave the proxy's HTTP server: they must go before it can close.
    closers.push(() => {
      for (const socket of tunnelSockets) socket.destroy();
    });
    const kubeConfig = KubeConfig.fromString(
      JSON.stringify({
        clusters: [
          {
            name: 'c',
            cluster: {
              server: `https://127.0.0.1:${server.port}`,
              'certificate-authority-data': server.ca.toString('base64'),
              'proxy-url': `http://127.0.0.1:${proxyPort}`,
            },
          },
        ],
        users: [{ name: 'u', user: { token: 't' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const transport = new HttpTransport(kubeConfig, { protobuf: false });
    closers.push(() => transport.close());
    const got = await transport.get(ConfigMap, { namespace: 'ns', name: 'a' });
    expect(got.metadata.name).toBe('a');
    expect(tunnels).toEqual([`127.0.0.1:${server.port}`]);
  });
});
