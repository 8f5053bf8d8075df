/**
 * Read-your-own-writes against the real apiserver, with its watch held back 400 ms by a proxy (a
 * cache that lags, as under load): a reconcile that writes and runs again at once reads what it
 * wrote, never the cache's older copy, and acts once.
 */
import { useControlPlane } from '@capstan/envtest/vitest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InformerCache } from '../../src/cache/index.js';
import { Client, ConfigMap, HttpTransport, isAlreadyExists, isNotFound } from '../../src/client/index.js';
import { Expectations } from '../../src/helpers/index.js';
import { eventually } from '../../src/testing/index.js';
import { ApiProxy } from '../testing/api-proxy.js';

const env = useControlPlane('own-writes');
const proxy = new ApiProxy();
let transport: HttpTransport;
let cache: InformerCache;
beforeAll(async () => {
  transport = new HttpTransport(await proxy.start(env.kubeConfig));
  proxy.watchDelayMs = 400;
});
afterAll(async () => {
  transport?.close();
  await proxy.stop();
});
afterEach(async () => {
  await cache?.stop();
});

async function syncedClient(readYourWrites: boolean): Promise<Client> {
  cache = new InformerCache(transport);
  cache.informerFor(ConfigMap, { namespace: env.namespace });
  cache.start();
  await cache.waitForCacheSync(30_000);
  return new Client(transport, { cache, readYourWrites });
}

/** A reconcile that makes sure one ConfigMap exists and counts its runs in it. */
async function reconcile(client: Client, name: string): Promise<'created' | 'counted'> {
  const key = { namespace: env.namespace, name };
  const current = await client.get(ConfigMap, key).catch((err) => {
    if (isNotFound(err)) return undefined;
    throw err;
  });
  if (!current) {
    await client.create(ConfigMap, { metadata: { ...key }, data: { runs: '1' } });
    return 'created';
  }
  const runs = Number(current.data?.runs ?? 0) + 1;
  await client.update(ConfigMap, { ...current, data: { runs: String(runs) } });
  return 'counted';
}

describe('read-your-own-writes', () => {
  it('a reconcile run again at once reads its own create and update, and acts once each', async () => {
    const client = await syncedClient(true);
    expect(await reconcile(client, 'counter')).toBe('created');
    expect(await reconcile(client, 'counter')).toBe('counted'); // not a second create (409)
    expect(await reconcile(client, 'counter')).toBe('counted'); // from runs=2, not a stale runs=1 (409)
    const server = await transport.get(ConfigMap, { namespace: env.namespace, name: 'counter' });
    expect(server.data).toEqual({ runs: '3' });
    // Our copy looks like the cache's: frozen, without managedFields; a list has it too.
    const own = await client.get(ConfigMap, { namespace: env.namespace, name: 'counter' });
    expect(Object.isFrozen(own.metadata)).toBe(true);
    expect(own.metadata.managedFields).toBeUndefined();
    const listed = await client.list(ConfigMap, { namespace: env.namespace });
    expect(listed.items.find((c) => c.metadata.name === 'counter')?.data).toEqual({ runs: '3' });
    // And a delete is read as gone before the cache sees it.
    await client.delete(ConfigMap, { namespace: env.namespace, name: 'counter' });
    await expect(client.get(ConfigMap, { namespace: env.namespace, name: 'counter' })).rejects.toSatisfy(
      isNotFound,
    );
    expect(
      (await client.list(ConfigMap, { namespace: env.namespace })).items.map((c) => c.metadata.name),
    ).not.toContain('counter');
  });

  it('without it, the same reconcile acts on the stale cache (what it prevents)', async () => {
    const client = await syncedClient(false);
    expect(await reconcile(client, 'stale')).toBe('created');
    await expect(reconcile(client, 'stale')).rejects.toSatisfy(isAlreadyExists);
  });

  it('a list served by a selected informer shows our patch at once, and the informer’s once it has it', async () => {
    cache = new InformerCache(transport);
    // A controller's selected watch: the kind is held only in this selection (no get by key).
    const selection = { namespace: env.namespace, labelSelector: 'app=selected' };
    cache.informerFor(ConfigMap, selection);
    cache.start();
    await cache.waitForCacheSync(30_000);
    const client = new Client(transport, { cache });
    expect(cache.isCached(ConfigMap)).toBe(false);
    const key = { namespace: env.namespace, name: 'selected' };
    await client.create(ConfigMap, { metadata: { ...key, labels: { app: 'selected' } }, data: { v: '1' } });
    await eventually(() => expect(cache.list(ConfigMap, selection)).toHaveLength(1), { timeoutMs: 10_000 });
    const patched = await client.patch<ConfigMap>(ConfigMap, key, 'merge', { data: { v: '2' } });
    // The watch lags 400 ms: the informer still has v=1, the client's list answers ours.
    expect(cache.list<ConfigMap>(ConfigMap, selection)[0]?.data).toEqual({ v: '1' });
    const listed = await client.list(ConfigMap, selection);
    expect(listed.items.map((c) => c.data)).toEqual([{ v: '2' }]);
    expect(listed.items[0]?.metadata.resourceVersion).toBe(patched.metadata.resourceVersion);
    // Once the informer shows it, the list is the informer's own object: the entry is settled and
    // dropped (ours, a copy, would take its place while kept).
    await eventually(() => expect(cache.list<ConfigMap>(ConfigMap, selection)[0]?.data).toEqual({ v: '2' }), {
      timeoutMs: 10_000,
    });
    const informers = cache.list<ConfigMap>(ConfigMap, selection)[0];
    expect((await client.list(ConfigMap, selection)).items[0]).toBe(informers);
  });

  it('expectations hold an owner until the cache has seen its writes', async () => {
    const client = await syncedClient(true);
    const expectations = new Expectations(client);
    const owner = { namespace: env.namespace, name: 'owner' };
    const created = await client.create(ConfigMap, { metadata: { namespace: env.namespace, name: 'dep' } });
    expectations.expect(owner, ConfigMap, [created]);
    expect(expectations.satisfied(owner)).toBe(false); // the watch lags 400 ms
    await eventually(() => expect(expectations.satisfied(owner)).toBe(true), { timeoutMs: 10_000 });
    expect(cache.get(ConfigMap, { namespace: env.namespace, name: 'dep' })?.metadata.uid).toBe(
      created.metadata.uid,
    );
  });
});
