/**
 * `/metrics` served securely, against the real apiserver: HTTPS with a certificate reloaded when
 * its files change, each request's bearer token reviewed (TokenReview) and its user's right to
 * `get /metrics` checked (SubjectAccessReview). Tokens are real ServiceAccount tokens from the
 * TokenRequest API.
 */
import { WebhookServingCert } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client, ClusterRoleBinding, HttpTransport } from '../../../src/client/index.js';
import { Manager } from '../../../src/manager/index.js';
import { eventually } from '../../../src/testing/index.js';
import { servedFingerprint } from '../../webhook/https-client.js';
import {
  grantMetricsReader,
  serviceAccountToken as mintToken,
  revokeMetricsReader,
  scrape as scrapeMetrics,
} from './metrics-scrape.js';

const env = useControlPlane('secure-metrics');
const role = `capstan-metrics-reader-${process.pid}`;

let cert: WebhookServingCert;
let client: Client;
let transport: HttpTransport;
let manager: Manager;
let port: number;
const stop = new AbortController();
let done: Promise<void>;

const scrape = (token?: string) => scrapeMetrics(port, cert.caPem, token);
const serviceAccountToken = (name: string) => mintToken(client, transport, env.namespace, name);

beforeAll(async () => {
  cert = await WebhookServingCert.create();
  transport = new HttpTransport(env.kubeConfig);
  client = new Client(transport);
  manager = Manager.create({
    kubeConfig: env.kubeConfig,
    logLevel: 'silent',
    metricsBindAddress: '127.0.0.1:0',
    healthProbeBindAddress: '0',
    metricsSecure: { certDir: cert.certDir, certPollIntervalMs: 200 },
  });
  done = manager.start(stop.signal);
  await eventually(() => expect(manager.listening.metrics).toBeGreaterThan(0));
  port = manager.listening.metrics as number;
});

afterAll(async () => {
  stop.abort();
  await done;
  await revokeMetricsReader(client, role);
  cert.remove();
});

it('answers 401 without a token, 403 without the right to get /metrics, 200 with it', async () => {
  const scraper = await serviceAccountToken('scraper');
  const stranger = await serviceAccountToken('stranger');
  await grantMetricsReader(client, role, { name: 'scraper', namespace: env.namespace });

  expect((await scrape()).status).toBe(401);
  expect((await scrape('not-a-token')).status).toBe(401);
  const forbidden = await scrape(stranger);
  expect(forbidden.status).toBe(403);
  expect(forbidden.body).toContain(`system:serviceaccount:${env.namespace}:stranger`);
  const allowed = await scrape(scraper);
  expect(allowed.status).toBe(200);
  expect(allowed.body).toMatch(/^# (HELP|TYPE) /m);

  // The answer is cached (5 min for an allowed request): with the binding gone, the next scrape
  // still passes without asking the server, while a token not seen before is asked about.
  await client.delete(ClusterRoleBinding, { name: role });
  expect((await scrape(scraper)).status).toBe(200);
  expect((await scrape(await serviceAccountToken('late'))).status).toBe(403);
}, 60_000);

it('serves a rotated certificate without a restart', async () => {
  const before = await servedFingerprint(port);
  await cert.rotate();
  await eventually(async () => expect(await servedFingerprint(port)).not.toBe(before), {
    timeoutMs: 10_000,
  });
  // The new pair is the one served and trusted: a scrape over it still answers.
  expect((await scrape()).status).toBe(401);
}, 30_000);
