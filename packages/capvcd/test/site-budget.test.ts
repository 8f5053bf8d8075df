/**
 * A site's request budget (one p-queue): never more requests in flight than its concurrency, and
 * never more started in a rolling window than its burst, against a real HTTPS server.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { CertificateAuthority } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Site } from '../src/vcd/site.js';

const ca = CertificateAuthority.create('site-budget-ca');
const serving = ca.issueServing('site');
let server: Server;
let url: string;
let inFlight = 0;
let maxInFlight = 0;
let arrivals: number[] = [];

beforeAll(async () => {
  server = createServer({ cert: serving.cert, key: serving.key }, (_req, res) => {
    arrivals.push(performance.now());
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => {
      inFlight--;
      res.end('ok');
    }, 40);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
});

const burstOf = (site: Site, n: number) =>
  Promise.all(Array.from({ length: n }, () => site.send('GET', '/api/org', {})));

describe('a site’s request budget', () => {
  it('keeps at most `concurrency` requests in flight, however many wait', async () => {
    maxInFlight = 0;
    const site = new Site({ url, caPem: ca.certPem, qps: 1000, burst: 1000, concurrency: 3 });
    const answers = await burstOf(site, 15);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(maxInFlight).toBe(3);
    site.close();
  });

  it('starts at most `burst` requests in any `burst / qps` seconds', async () => {
    arrivals = [];
    const site = new Site({ url, caPem: ca.certPem, qps: 20, burst: 4, concurrency: 100 });
    const started = performance.now();
    await burstOf(site, 12);
    // 4 at once, 4 more 200 ms later, the last 4 at 400 ms: the whole takes 400 ms at least.
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    const sorted = [...arrivals].sort((a, b) => a - b);
    expect(sorted).toHaveLength(12);
    // Measured from the burst's start, not from the first arrival: a request reaches the server no
    // earlier than it starts, while the first ones' TLS handshakes may arrive late under load.
    expect((sorted[4] as number) - started).toBeGreaterThanOrEqual(190);
    expect((sorted[8] as number) - started).toBeGreaterThanOrEqual(390);
    site.close();
  });
});
