/**
 * sendRequest against a local HTTPS server with a CA of its own: trust (CA bundle, system roots,
 * insecure), keep-alive reuse, whole answers whatever the status, and every way an answer can
 * fail to come (deadline on a manual clock, abort, connection cut mid-answer).
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { WebhookServingCert } from '@capstan/envtest';
import { keepAliveAgent, RequestTimeoutError, sendRequest } from '@capstan/runtime/http';
import { eventually, flushMicrotasks, ManualClock } from '@capstan/runtime/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer, type RecordedRequest, startLocalServer } from '../client/local-server.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, seen: RecordedRequest) => void;

let cert: WebhookServingCert;
let server: LocalServer;
let base: URL;
let seen: RecordedRequest[];
let handler: Handler = (_req, res) => res.end();

beforeAll(async () => {
  cert = await WebhookServingCert.create();
  server = await startLocalServer((req, res, recorded) => handler(req, res, recorded), {
    cert: readFileSync(join(cert.certDir, 'tls.crt')),
    key: readFileSync(join(cert.certDir, 'tls.key')),
  });
  base = new URL(server.url);
  seen = server.requests;
});

afterAll(async () => {
  await server?.close();
  cert?.remove();
});

afterEach(() => {
  seen.length = 0;
  handler = (_req, res) => res.end();
});

const at = (path: string) => new URL(path, base);

describe('sendRequest', () => {
  it('verifies the server with the CA bundle and reads the whole answer', async () => {
    handler = (_req, res) => res.writeHead(200, { 'X-Answer': 'yes' }).end('héllo');
    const answer = await sendRequest(at('/api/versions?x=1'), {
      method: 'GET',
      headers: { Accept: 'application/*+xml' },
      trust: { caPem: cert.caPem },
    });
    expect(answer).toMatchObject({ status: 200, body: 'héllo' });
    expect(answer.headers['x-answer']).toBe('yes');
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/api/versions?x=1' });
    expect(seen[0]?.headers.accept).toBe('application/*+xml');
  });

  it('refuses a server the system roots do not vouch for; skips verification only when insecure', async () => {
    const refused = await sendRequest(at('/'), { method: 'GET' }).catch((e: unknown) => e);
    expect(String((refused as Error).message)).toMatch(/certificate/i);
    expect(seen).toHaveLength(0);
    const agent = keepAliveAgent(base, { insecure: true });
    expect((await sendRequest(at('/'), { method: 'GET', agent })).status).toBe(200);
    expect((await sendRequest(at('/'), { method: 'GET', trust: { insecure: true } })).status).toBe(200);
    agent.destroy();
  });

  it('keeps one connection alive across requests on one agent', async () => {
    const agent = keepAliveAgent(base, { caPem: cert.caPem });
    for (let i = 0; i < 3; i++) await sendRequest(at(`/n/${i}`), { method: 'GET', agent });
    expect(seen.map((s) => s.url)).toEqual(['/n/0', '/n/1', '/n/2']);
    expect(new Set(seen.map((s) => s.remotePort)).size).toBe(1);
    agent.destroy();
  });

  it('sends the body with its byte length, and resolves with any status the server answered', async () => {
    handler = (_req, res, s) => res.writeHead(503, { 'Retry-After': '2' }).end(`busy: ${s.body}`);
    const answer = await sendRequest(at('/cloudapi/1.0.0/sessions'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"name":"ünï"}',
      trust: { caPem: cert.caPem },
    });
    expect(answer).toMatchObject({ status: 503, body: 'busy: {"name":"ünï"}' });
    expect(answer.headers['retry-after']).toBe('2');
    expect(seen[0]?.headers['content-length']).toBe(String(Buffer.byteLength('{"name":"ünï"}')));
  });

  it('gives up with a RequestTimeoutError once the deadline passes on its clock', async () => {
    handler = (_req, res) => res.writeHead(200).write('partial'); // never ends
    const clock = new ManualClock();
    const answer = sendRequest(at('/slow'), {
      method: 'GET',
      trust: { caPem: cert.caPem },
      timeoutMs: 5_000,
      clock,
    });
    let ended = false;
    const outcome = answer.catch((e: unknown) => e).finally(() => (ended = true));
    await eventually(() => expect(seen).toHaveLength(1));
    clock.advance(4_999);
    await flushMicrotasks();
    expect(ended).toBe(false);
    clock.advance(1);
    const err = await outcome;
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect((err as Error).message).toBe('GET /slow: no answer within 5000 ms');
  });

  it('rejects with the abort reason, and sends nothing when aborted before', async () => {
    handler = () => {}; // never answers
    const controller = new AbortController();
    const answer = sendRequest(at('/hang'), {
      method: 'GET',
      trust: { caPem: cert.caPem },
      signal: controller.signal,
    });
    await eventually(() => expect(seen).toHaveLength(1));
    controller.abort(new Error('shutting down'));
    await expect(answer).rejects.toThrow('shutting down');
    await expect(
      sendRequest(at('/never'), { method: 'GET', trust: { caPem: cert.caPem }, signal: controller.signal }),
    ).rejects.toThrow('shutting down');
    expect(seen.map((s) => s.url)).toEqual(['/hang']);
  });

  it('rejects when the connection is cut mid-answer', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Length': '100' }).write('only part');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    await expect(sendRequest(at('/cut'), { method: 'GET', trust: { caPem: cert.caPem } })).rejects.toThrow();
  });

  it('speaks plain HTTP when the URL says so', async () => {
    const plain = http.createServer((_req, res) => res.end('plain'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    const url = new URL(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/x`);
    const agent = keepAliveAgent(url);
    expect(await sendRequest(url, { method: 'GET', agent })).toMatchObject({ status: 200, body: 'plain' });
    agent.destroy();
    plain.closeAllConnections();
    await new Promise<void>((resolve) => plain.close(() => resolve()));
  });
});
