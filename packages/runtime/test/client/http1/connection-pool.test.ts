import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Cancellation } from '../../../src/transport/http1/cancellation.js';
import { ConnectionPool, requestHead } from '../../../src/transport/http1/connection-pool.js';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A node:http server (what answers is Node's HTTP/1.1 server, framing and all). */
async function httpServer(handler: http.RequestListener): Promise<{ pool: ConnectionPool; ports: number[] }> {
  const ports: number[] = [];
  const server = http.createServer((req, res) => {
    ports.push(req.socket.remotePort ?? 0);
    handler(req, res);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const pool = new ConnectionPool({
    host: '127.0.0.1',
    port,
    authority: `127.0.0.1:${port}`,
    tls: undefined,
  });
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  closers.push(() => server.closeAllConnections());
  closers.push(() => pool.close());
  return { pool, ports };
}

/** A raw TCP server: `onRequest` gets each request's bytes (a request a read) and its socket. */
async function rawServer(
  onRequest: (socket: net.Socket, text: string, n: number) => void,
  idleTimeoutMs?: number,
) {
  let n = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (d) => onRequest(socket, d.toString('latin1'), n++));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const pool = new ConnectionPool(
    { host: '127.0.0.1', port, authority: `127.0.0.1:${port}`, tls: undefined },
    idleTimeoutMs,
  );
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  closers.push(() => {
    for (const s of sockets) s.destroy();
  });
  closers.push(() => pool.close());
  return { pool, sockets, requests: () => n };
}

const get = { method: 'GET', path: '/api/v1/namespaces', headers: { Accept: 'application/json' } };

describe('ConnectionPool', () => {
  it('sends the request as written and keeps one connection for a run of requests', async () => {
    const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
    const { pool, ports } = await httpServer((req, res) => {
      let body = '';
      req.on('data', (d) => {
        body += d;
      });
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ n: seen.length }));
      });
    });
    for (let i = 0; i < 3; i++) {
      const answer = await pool.request({
        method: 'PATCH',
        path: '/api/v1/namespaces/ns/configmaps/a?fieldManager=x',
        headers: { 'Content-Type': 'application/merge-patch+json', 'Impersonate-Group': ['a', 'b'] },
        body: '{"data":{"k":"é"}}',
      });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('application/json');
      expect(JSON.parse(answer.body.toString())).toEqual({ n: i + 1 });
    }
    expect(new Set(ports).size).toBe(1);
    expect(seen[0]).toMatchObject({
      method: 'PATCH',
      url: '/api/v1/namespaces/ns/configmaps/a?fieldManager=x',
      body: '{"data":{"k":"é"}}',
    });
    expect(seen[0]?.headers).toMatchObject({
      host: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      'content-type': 'application/merge-patch+json',
      'content-length': String(Buffer.byteLength('{"data":{"k":"é"}}')),
      'impersonate-group': 'a, b',
    });
  });

  it('reads chunked answers, and opens a new connection after Connection: close', async () => {
    const { pool, ports } = await httpServer((req, res) => {
      if (req.url === '/close') res.setHeader('Connection', 'close');
      res.write('part one, ');
      setTimeout(() => res.end('part two'), 5);
    });
    expect((await pool.request({ ...get, path: '/a' })).body.toString()).toBe('part one, part two');
    expect((await pool.request({ ...get, path: '/close' })).body.toString()).toBe('part one, part two');
    await pool.request({ ...get, path: '/b' });
    expect(ports[0]).toBe(ports[1]);
    expect(ports[2]).not.toBe(ports[1]);
  });

  it('sends a GET again on a new connection when its reused one was closed by the server', async () => {
    const { pool, requests } = await rawServer((socket, _text, n) => {
      if (n === 1) {
        socket.destroy(); // the idle connection dropped just as it was reused
        return;
      }
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    await pool.request(get);
    const answer = await pool.request(get);
    expect(answer.body.toString()).toBe('ok');
    expect(requests()).toBe(3);
  });

  it('does not send a PATCH again when its reused connection was closed: the caller decides', async () => {
    const { pool, requests } = await rawServer((socket, _text, n) => {
      if (n === 1) {
        socket.destroy();
        return;
      }
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    await pool.request(get);
    await expect(pool.request({ ...get, method: 'PATCH', body: '{}' })).rejects.toThrow(/closed/);
    expect(requests()).toBe(2);
  });

  it('never retries an answer cut off midway, even a GET', async () => {
    const { pool, requests } = await rawServer((socket, _text, n) => {
      if (n === 1) socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort');
      else socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    await pool.request(get);
    await expect(pool.request(get)).rejects.toThrow(/closed mid-answer/);
    expect(requests()).toBe(2);
  });

  it('fails on garbage from the server instead of waiting, and the next request gets a new connection', async () => {
    const { pool } = await rawServer((socket, _text, n) => {
      socket.write(n === 0 ? 'SSH-2.0-nope\r\n\r\n' : 'HTTP/1.1 204 No Content\r\n\r\n');
    });
    await expect(pool.request(get)).rejects.toThrow(/status line/);
    expect((await pool.request(get)).status).toBe(204);
  });

  it('ends a request when it is cancelled, with the reason, and the connection is not reused', async () => {
    const { pool, sockets } = await rawServer(() => {}); // never answers
    const cancellation = new Cancellation();
    const pending = pool.request(get, cancellation);
    setTimeout(() => cancellation.cancel(new Error('deadline passed')), 20);
    await expect(pending).rejects.toThrow('deadline passed');
    const done = new Cancellation();
    done.cancel(new Error('already over'));
    await expect(pool.request(get, done)).rejects.toThrow('already over');
    await new Promise((r) => setTimeout(r, 20));
    expect([...sockets].every((s) => s.destroyed || s.readableEnded)).toBe(true);
  });

  it('closes connections idle longer than its idle timeout', async () => {
    const { pool, sockets } = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
    }, 200);
    await pool.request(get);
    const [socket] = [...sockets];
    // The sweeper closes it 200–1,200 ms after the answer; the test times out if it never does.
    await new Promise<void>((resolve) => socket?.on('close', () => resolve()));
    await pool.request(get);
    expect(sockets.size).toBe(2);
  });

  it('streams an answer piece by piece to the sink, on a reused connection replaced when it was closed', async () => {
    const { pool, requests } = await rawServer((socket, _text, n) => {
      if (n === 0) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
      else if (n === 1) socket.destroy();
      else {
        socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n');
        setTimeout(() => socket.write('6\r\nsecond\r\n0\r\n\r\n'), 20);
      }
    });
    await pool.request(get); // leaves an idle connection, which the server then drops on reuse
    const pieces: string[] = [];
    let status = 0;
    const stream = pool.stream(get, (parser) => {
      status = parser.status;
      parser.sink = (bytes) => pieces.push(bytes.toString());
    });
    const answer = await stream.answer;
    expect(status).toBe(200);
    expect(pieces).toEqual(['first', 'second']);
    expect(answer.body.length).toBe(0);
    expect(requests()).toBe(3);
  });

  it('ends a stream at once when destroyed, with the reason', async () => {
    const { pool } = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\none\r\n');
    });
    const pieces: string[] = [];
    const stream = pool.stream(get, (parser) => {
      parser.sink = (bytes) => {
        pieces.push(bytes.toString());
        stream.destroy(new Error('stopped by the watch'));
      };
    });
    await expect(stream.answer).rejects.toThrow('stopped by the watch');
    expect(pieces).toEqual(['one']);
  });

  it('answers an interim 100 Continue with the final answer', async () => {
    const { pool } = await rawServer((socket) => {
      socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 3\r\n\r\nnew');
    });
    const answer = await pool.request({ ...get, method: 'POST', body: '{}' });
    expect(answer.status).toBe(201);
    expect(answer.body.toString()).toBe('new');
  });
});

describe('requestHead', () => {
  it('writes the request line, the Host, the headers and the body length, and leaves framing to itself', () => {
    const head = requestHead(
      {
        method: 'POST',
        path: '/x',
        headers: { A: '1', 'Content-Length': 99, Host: 'evil', B: undefined },
        body: 'é',
      },
      'example:6443',
    );
    expect(head).toBe('POST /x HTTP/1.1\r\nHost: example:6443\r\nA: 1\r\nContent-Length: 2\r\n\r\n');
  });

  it('refuses what would break the framing: CR/LF in a value, a bad name, an unescaped path', () => {
    const base = { method: 'GET', path: '/x', headers: {} };
    expect(() => requestHead({ ...base, headers: { A: 'x\r\nInjected: 1' } }, 'h')).toThrow(TypeError);
    expect(() => requestHead({ ...base, headers: { 'A B': 'x' } }, 'h')).toThrow(TypeError);
    expect(() => requestHead({ ...base, path: '/a b' }, 'h')).toThrow(/escaped/);
    expect(() => requestHead({ ...base, method: 'GET /' }, 'h')).toThrow(/method/);
  });
});
