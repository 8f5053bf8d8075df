/**
 * What the server says besides the answer, against the real apiserver: its `Warning` headers are
 * told once per distinct text, and a 429 with `Retry-After` (here from a proxy in front of it, as
 * API Priority and Fairness would answer under load) is sent again after that delay.
 */
import { useControlPlane } from '@capstan/envtest/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigMap, HttpTransport, isTooManyRequests } from '../../src/client/index.js';
import { ApiProxy, answerStatus, type ProxiedRequest } from '../testing/api-proxy.js';

const env = useControlPlane('warnings');
const proxy = new ApiProxy();
const warnings: string[] = [];
let transport: HttpTransport;
beforeAll(async () => {
  transport = new HttpTransport(await proxy.start(env.kubeConfig), {
    onWarning: (text) => warnings.push(text),
    retryAfter: { maxRetries: 2 },
  });
});
afterAll(async () => {
  transport?.close();
  await proxy.stop();
});

const isConfigMapGet = (name: string) => (r: ProxiedRequest) =>
  r.method === 'GET' && r.url.includes(`/configmaps/${name}`);

describe('the API server warns', () => {
  it('tells each distinct warning once, however often the server repeats it', async () => {
    // ConfigMaps have no spec: the server drops it and warns (field validation defaults to Warn).
    const odd = (name: string) =>
      ({ metadata: { name, namespace: env.namespace }, spec: { replicas: 1 } }) as unknown as ConfigMap;
    await transport.create(ConfigMap, odd('warned-1'));
    await transport.create(ConfigMap, odd('warned-2'));
    expect(warnings).toEqual(['unknown field "spec"']);
  });
});

describe('429 with Retry-After', () => {
  it('is sent again after the delay the server asked for', async () => {
    await transport.create(ConfigMap, { metadata: { name: 'throttled', namespace: env.namespace } });
    proxy.clear();
    let throttled = 0;
    proxy.intercept = (r, res) => {
      if (!isConfigMapGet('throttled')(r) || throttled++ > 0) return false;
      answerStatus(res, 429, 'TooManyRequests', 'too many requests, please try again later', {
        'Retry-After': '1',
      });
      return true;
    };
    const got = await transport.get(ConfigMap, { namespace: env.namespace, name: 'throttled' });
    expect(got.metadata.name).toBe('throttled');
    const gets = proxy.seen.filter(isConfigMapGet('throttled'));
    expect(gets).toHaveLength(2);
    const waited = (gets[1] as ProxiedRequest).at - (gets[0] as ProxiedRequest).at;
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(waited).toBeLessThan(3_000);
  });

  it('gives up after its bounded number of retries, with the 429', async () => {
    proxy.clear();
    proxy.intercept = (r, res) => {
      if (!isConfigMapGet('throttled')(r)) return false;
      answerStatus(res, 429, 'TooManyRequests', 'still too many', { 'Retry-After': '0' });
      return true;
    };
    const err = await transport
      .get(ConfigMap, { namespace: env.namespace, name: 'throttled' })
      .catch((e) => e);
    expect(isTooManyRequests(err)).toBe(true);
    expect(proxy.seen.filter(isConfigMapGet('throttled'))).toHaveLength(3); // 1 + maxRetries
    proxy.intercept = undefined;
  });
});
