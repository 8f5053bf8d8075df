/** A minimal HTTPS (or HTTP) client that trusts the simulator's CA: for tests, the bench and demos. */
import type http from 'node:http';
import { sendRequest } from '@capstan/runtime/http';

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

/**
 * Sends one request to `path` (relative to the endpoint's URL) and reads the whole answer, over
 * `opts.agent` when given (it carries its own trust), else trusting the endpoint's CA.
 */
export async function callSim(
  to: Endpoint,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: string; agent?: http.Agent } = {},
): Promise<Answer> {
  const { status, headers, body } = await sendRequest(new URL(path, to.url), {
    method,
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(opts.body !== undefined ? { body: opts.body } : {}),
    ...(opts.agent ? { agent: opts.agent } : { trust: { caPem: to.caPem } }),
  });
  return { status, headers, text: body };
}
