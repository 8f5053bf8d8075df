/**
 * Delivery against local HTTPS receivers: in order, retried on the backoff curve, each POST under
 * its timeout, a full queue dropping (counted), and a hanging endpoint neither slowing `enqueue`
 * nor another endpoint.
 */
import type { Logger } from '@capstan/runtime';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '@capstan/runtime/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { WebhookDelivery } from '../../src/notifications/delivery.js';

const open: WebhookReceiver[] = [];
const deliveries: WebhookDelivery[] = [];
afterEach(async () => {
  for (const d of deliveries.splice(0)) d.stop();
  for (const r of open.splice(0)) await r.close();
});

async function receiver(options?: Parameters<typeof startWebhookReceiver>[0]): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver(options);
  open.push(r);
  return r;
}

function tally() {
  const counts = { sent: 0, failed: 0, dropped: 0 };
  return { counts, count: (result: keyof typeof counts) => counts[result]++ };
}

describe('WebhookDelivery', () => {
  it('delivers bodies in order over HTTPS verified with the given CA', async () => {
    const r = await receiver();
    const { counts, count } = tally();
    const d = new WebhookDelivery({ trust: { caPem: r.caPem }, count });
    deliveries.push(d);
    for (let i = 0; i < 20; i++) d.enqueue(r.url, JSON.stringify({ i }));
    await d.whenIdle();
    expect(r.bodies.map((b) => b.i)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(counts).toEqual({ sent: 20, failed: 0, dropped: 0 });
  });

  it('retries a refusing endpoint on the backoff curve, then gives up', async () => {
    const r = await receiver({ status: 503 });
    const { counts, count } = tally();
    const waits: number[] = [];
    const d = new WebhookDelivery({
      trust: { caPem: r.caPem },
      count,
      maxAttempts: 4,
      backoff: { initialMs: 100, maxMs: 300 },
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    deliveries.push(d);
    d.enqueue(r.url, '{}');
    await d.whenIdle();
    expect(r.hits).toBe(4);
    expect(waits).toEqual([100, 200, 300]);
    expect(counts).toEqual({ sent: 0, failed: 1, dropped: 0 });
  });

  it('a hanging endpoint: enqueue returns at once, each POST times out, the queue drops, others go on', async () => {
    const hanging = await receiver({ hang: true });
    const healthy = await receiver();
    const { counts, count } = tally();
    const warnings: unknown[] = [];
    const logger = { warn: (fields: unknown) => warnings.push(fields) } as unknown as Logger;
    const d = new WebhookDelivery({
      trust: { caPem: hanging.caPem },
      count,
      logger,
      timeoutMs: 200,
      maxAttempts: 2,
      backoff: { initialMs: 10, maxMs: 10 },
      queueLimit: 3,
    });
    deliveries.push(d);
    const started = performance.now();
    for (let i = 0; i < 10; i++) d.enqueue(hanging.url, JSON.stringify({ i }));
    const enqueueMs = performance.now() - started;
    expect(enqueueMs).toBeLessThan(50);
    expect(counts.dropped).toBe(7);
    // Logged once, naming the host only (webhook paths carry tokens).
    expect(warnings).toEqual([{ endpoint: new URL(hanging.url).host }]);

    const other = new WebhookDelivery({ trust: { caPem: healthy.caPem } });
    deliveries.push(other);
    const t0 = performance.now();
    other.enqueue(healthy.url, '{"ok":true}');
    await other.whenIdle();
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(healthy.bodies).toEqual([{ ok: true }]);

    // Each of the 3 queued bodies: 2 attempts of 200 ms, then given up.
    await eventually(() => counts.failed === 3, {
      what: 'the hanging endpoint’s bodies given up',
      timeoutMs: 10_000,
    });
    expect(hanging.hits).toBe(6);
    expect(hanging.bodies).toEqual([]);
  });
});
