/**
 * A server on loopback (plain HTTP, or HTTPS given a certificate) that plays the API server in
 * transport tests, with a kubeconfig pointing at it (client-node allows http:// only with
 * skipTLSVerify).
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { defineResource } from '../../src/api/types.js';

export interface LocalServer {
  url: string;
  host: string;
  kubeConfig: KubeConfig;
  /** Requests seen, in order, with their bodies. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  remotePort: number | undefined;
}

/**
 * Starts a server calling `handler` after the request body was read (kept in `requests`); over
 * HTTPS when given a certificate and key.
 */
export async function startLocalServer(
  handler: (req: http.IncomingMessage, res: http.ServerResponse, recorded: RecordedRequest) => void,
  tls?: { cert: string | Buffer; key: string | Buffer },
): Promise<LocalServer> {
  const requests: RecordedRequest[] = [];
  const listener: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort,
      };
      requests.push(recorded);
      handler(req, res, recorded);
    });
  };
  const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'local', server: url, skipTLSVerify: true }],
    users: [{ name: 'tester', token: 'secret-token' }],
    contexts: [{ name: 'local', cluster: 'local', user: 'tester' }],
    currentContext: 'local',
  });
  return {
    url,
    host: `127.0.0.1:${port}`,
    kubeConfig,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers with JSON. */
export function sendJson(
  res: http.ServerResponse,
  code: number,
  body: unknown,
  headers: http.OutgoingHttpHeaders = {},
) {
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Starts a streaming (chunked) answer and sends the headers at once, as the API server does for a watch. */
export function startStream(res: http.ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
}

export const watchLine = (type: string, object: unknown): string => `${JSON.stringify({ type, object })}\n`;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A custom resource (no protobuf schema) for the tests that need one. */
export const Widget = defineResource({
  group: 'example.dev',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
});
