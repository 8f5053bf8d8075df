/**
 * JSON over HTTP(S) to Prometheus and Alertmanager: an optional bearer token and CA bundle, read
 * from Secrets the group names, and a timeout on every request, so an endpoint that hangs becomes
 * an error (which closes a gate) rather than a stalled round.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type Client, isJsonObject } from '@capstan/runtime';
import { Secret } from '@capstan/runtime/client';

/** A key of a Secret, as the API's fields name it. */
export interface SecretKeyRef {
  namespace: string;
  name: string;
  key: string;
}

/** How to reach one endpoint. */
export interface Endpoint {
  url: string;
  bearerTokenSecretRef?: SecretKeyRef;
  caSecretRef?: SecretKeyRef;
}

/** The credentials an endpoint needs, read now. */
export interface EndpointAuth {
  token?: string;
  ca?: string;
}

/** Reads a Secret key's value (throws with the Secret's name when it or the key is missing). */
export async function readSecretKey(client: Client, ref: SecretKeyRef): Promise<string> {
  const secret = await client.get(Secret, { namespace: ref.namespace, name: ref.name }, { direct: true });
  const data = secret.data?.[ref.key];
  if (data === undefined) throw new Error(`Secret ${ref.namespace}/${ref.name} has no key ${ref.key}`);
  return Buffer.from(data, 'base64').toString('utf8').trim();
}

/** The token and CA an endpoint names, read from their Secrets. */
export async function endpointAuth(client: Client, endpoint: Endpoint): Promise<EndpointAuth> {
  const auth: EndpointAuth = {};
  if (endpoint.bearerTokenSecretRef) auth.token = await readSecretKey(client, endpoint.bearerTokenSecretRef);
  if (endpoint.caSecretRef) auth.ca = await readSecretKey(client, endpoint.caSecretRef);
  return auth;
}

/** Sends `body` (JSON) or nothing to `base` + `path`; answers the parsed JSON of a 2xx answer. */
export function requestJson(
  base: string,
  path: string,
  options: { method?: string; body?: unknown; auth?: EndpointAuth; timeoutMs: number },
): Promise<unknown> {
  const url = new URL(path, base.endsWith('/') ? base : `${base}/`);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (payload !== undefined) headers['content-type'] = 'application/json';
  if (options.auth?.token) headers.authorization = `Bearer ${options.auth.token}`;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: options.method ?? 'GET',
        headers,
        timeout: options.timeoutMs,
        ...(options.auth?.ca ? { ca: options.auth.ca } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            reject(new Error(`${url.origin}${url.pathname} answered ${status}: ${text.slice(0, 300)}`));
            return;
          }
          try {
            resolve(text === '' ? undefined : JSON.parse(text));
          } catch {
            reject(new Error(`${url.origin}${url.pathname} answered something that is not JSON`));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`${url.origin}${url.pathname}: no answer within ${options.timeoutMs} ms`)),
    );
    req.on('error', (err) => reject(new Error(`${url.origin}${url.pathname}: ${err.message}`)));
    req.end(payload);
  });
}

/** The `data` of a Prometheus API answer whose `status` is `success`. */
export function prometheusData(answer: unknown): unknown {
  if (!isJsonObject(answer) || answer.status !== 'success')
    throw new Error(`Prometheus answered ${JSON.stringify(answer).slice(0, 200)}`);
  return answer.data;
}
