/**
 * `--metrics-secure` without a certificate folder, against the real apiserver: the manager makes
 * a self-signed pair at start (as controller-runtime does), a scraper that skips verification
 * (a ServiceMonitor's `insecureSkipVerify`) gets the metrics with an allowed token, and the token
 * is still checked.
 */
import { WebhookServingCert } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client, HttpTransport } from '../../../src/client/index.js';
import { Manager } from '../../../src/manager/index.js';
import { eventually } from '../../../src/testing/index.js';
import { grantMetricsReader, revokeMetricsReader, scrape, serviceAccountToken } from './metrics-scrape.js';

const env = useControlPlane('secure-metrics-self-signed');
const role = `capstan-metrics-self-signed-${process.pid}`;

let client: Client;
let transport: HttpTransport;
let manager: Manager;
let port: number;
const stop = new AbortController();
let done: Promise<void>;

beforeAll(async () => {
  transport = new HttpTransport(env.kubeConfig);
  client = new Client(transport);
  // What --metrics-secure without --metrics-cert-path maps to (cli/metrics-flags.test.ts).
  manager = Manager.create({
    kubeConfig: env.kubeConfig,
    logLevel: 'silent',
    metricsBindAddress: '127.0.0.1:0',
    healthProbeBindAddress: '0',
    metricsSecure: {},
  });
  done = manager.start(stop.signal);
  await eventually(() => expect(manager.listening.metrics).toBeGreaterThan(0));
  port = manager.listening.metrics as number;
});

afterAll(async () => {
  stop.abort();
  await done;
  await revokeMetricsReader(client, role);
});

it('serves /metrics over a self-signed certificate to an allowed token, 401 without one', async () => {
  const scraper = await serviceAccountToken(client, transport, env.namespace, 'self-signed-scraper');
  await grantMetricsReader(client, role, { name: 'self-signed-scraper', namespace: env.namespace });

  const allowed = await scrape(port, undefined, scraper);
  expect(allowed.status).toBe(200);
  expect(allowed.body).toMatch(/^# (HELP|TYPE) /m);
  expect(allowed.issuer).toMatch(/^capstan-metrics-ca@\d+$/);
  expect((await scrape(port, undefined)).status).toBe(401);

  // Made at start, by no CA a client knows: verifying against another CA fails the handshake.
  const other = await WebhookServingCert.create();
  try {
    await expect(scrape(port, other.caPem, scraper)).rejects.toThrow(
      /self.signed|unable to verify|certificate/i,
    );
  } finally {
    other.remove();
  }
}, 60_000);
