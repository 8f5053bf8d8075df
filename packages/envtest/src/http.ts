/** The small HTTP(S) clients envtest uses before (and beside) client-node: probes and raw JSON requests. */
import { request } from 'node:https';

/** TLS material of a client identity: the cluster CA and a client certificate and key (PEM). */
export interface ClientTls {
  ca: string;
  cert: string;
  key: string;
}

/** The status and parsed JSON body (or text) of an answer. */
export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** One JSON request to `server` with the given identity. */
export function jsonRequest(
  server: string,
  tls: ClientTls,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<ApiAnswer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${server}${path}`,
      {
        ...tls,
        method,
        timeout: 10_000,
        headers: payload ? { 'content-type': contentType, accept: 'application/json' } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          try {
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
          } catch {
            resolve({ status: res.statusCode ?? 0, body: text });
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
    req.end(payload);
  });
}

/** Whether a plain-HTTP GET of `url` answers 2xx. */
export async function httpOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return res.ok;
  } catch {
    return false;
  }
}

/** Whether an HTTPS GET of `url` with `tls` answers 200. */
export function httpsOk(
  url: string,
  tls: Partial<ClientTls> & { rejectUnauthorized?: boolean },
): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { ...tls, timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** One etcd v3 JSON-gateway call. */
export async function etcdPost(etcdUrl: string, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${etcdUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}
