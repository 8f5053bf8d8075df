/**
 * The tsyringe adapter on a real API server: the container holds the manager's own parts under
 * the runtime's tokens, and a reconciler class resolved from it runs under the manager.
 */
import { useControlPlane } from '@capstan/envtest/vitest';
import { addKeyCount, KEYS_ANNOTATION, OPT_IN_LABEL } from '@capstan/example-key-count';
import { Client, EventRecorder, Manager, realClock } from '@capstan/runtime';
import { ConfigMap, HttpTransport } from '@capstan/runtime/client';
import { MetricsRegistry } from '@capstan/runtime/manager';
import { eventually } from '@capstan/runtime/testing';
import {
  CACHE,
  CLIENT,
  CLOCK,
  containerFor,
  EVENTS,
  LOGGER,
  MANAGER,
  METRICS,
} from '@capstan/runtime/tsyringe';
import { container as rootContainer } from 'tsyringe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const env = useControlPlane('key-count');
let client: Client;
let manager: Manager;
const stop = new AbortController();
let running: Promise<void>;

beforeAll(async () => {
  client = new Client(new HttpTransport(env.kubeConfig));
  manager = Manager.create({
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    metricsBindAddress: '127.0.0.1:0',
    healthProbeBindAddress: '127.0.0.1:0',
    logLevel: 'silent',
  });
  addKeyCount(manager);
  running = manager.start(stop.signal);
});
afterAll(async () => {
  stop.abort();
  await running;
});

describe('a reconciler built from a tsyringe container', () => {
  it('finds the manager’s own parts under the tokens and by class, in a child container', () => {
    const c = containerFor(manager);
    expect(c.resolve(MANAGER)).toBe(manager);
    expect(c.resolve(CLIENT)).toBe(manager.client);
    expect(c.resolve(Client)).toBe(manager.client);
    expect(c.resolve(CACHE)).toBe(manager.cache);
    expect(c.resolve(EVENTS)).toBe(manager.events);
    expect(c.resolve(EventRecorder)).toBe(manager.events);
    expect(c.resolve(LOGGER)).toBe(manager.logger);
    expect(c.resolve(METRICS)).toBe(manager.metrics);
    expect(c.resolve(MetricsRegistry)).toBe(manager.metrics);
    expect(c.resolve(CLOCK)).toBe(realClock);
    expect(rootContainer.isRegistered(CLIENT)).toBe(false);
  });

  it('annotates an opted-in ConfigMap with its key count, and follows changes', async () => {
    const key = { namespace: env.namespace, name: 'counted' };
    await client.create(ConfigMap, {
      metadata: { ...key, labels: { [OPT_IN_LABEL]: 'true' } },
      data: { a: '1', b: '2' },
    });
    await client.create(ConfigMap, {
      metadata: { namespace: env.namespace, name: 'ignored' },
      data: { a: '1' },
    });
    const annotated = async (want: string) =>
      eventually(
        async () => {
          const cm = await client.get(ConfigMap, key);
          return cm.metadata.annotations?.[KEYS_ANNOTATION] === want ? cm : undefined;
        },
        { timeoutMs: 15_000 },
      );
    await annotated('2');
    await client.patch(ConfigMap, key, 'merge', { data: { c: '3' } });
    await annotated('3');
    const ignored = await client.get(ConfigMap, { namespace: env.namespace, name: 'ignored' });
    expect(ignored.metadata.annotations?.[KEYS_ANNOTATION]).toBeUndefined();
  });
});
