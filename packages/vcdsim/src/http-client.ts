/** A minimal HTTPS (or HTTP) client that trusts the simulator's CA: for tests, the bench and demos. */
import http from 'node:http';
import https from 'node:https';

/** An answer: status, headers and the body as text. */
export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** Where to send: the simulator's base URL and CA (empty for plain HTTP). */
export interface Endpoint {
  url: string;
  caPem: string;
}

/** Sends one request to `path` (relative to the endpoint's URL) and reads the whole answer. */
export function callSim(
  to: Endpoint,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: string; agent?: http.Agent } = {},
): Promise<Answer> {
  const url = new URL(path, to.url);
  const tls = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const req = (tls ? https : http).request(
      url,
      {
        method,
        headers: opts.headers,
        ...(opts.agent ? { agent: opts.agent } : {}),
        ...(tls && !opts.agent ? { ca: to.caPem } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}
