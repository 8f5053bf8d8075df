/**
 * The credentials Secret is read from its own informer, not the API server once a reconcile: a
 * cluster of a control plane and two workers provisioned with a handful of GETs of it (before the
 * informer syncs, and the claim's fresh read), and a rotated Secret is still what the next
 * reconcile connects with.
 */

import { Client } from '@capstan/runtime';
import { Secret } from '@capstan/runtime/client';
import { FakeCluster } from '@capstan/runtime/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { CredentialsSecrets } from '../src/credentials-secrets.js';
import { NAMESPACE, sim } from './capvcd-world.js';
import { CREDENTIALS, type FakeProvider, provisioned, runUntil, startFakeProvider } from './fake-provider.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
let provider: FakeProvider | undefined;

afterEach(async () => {
  await provider?.stop();
  provider = undefined;
});

const tokenLogins = () =>
  sim()
    .inspect.requests()
    .filter((r) => r.method === 'POST' && r.route === '/oauth/tenant/{org}/token').length;

describe('the credentials Secret, from its informer', () => {
  it('provisions a cluster with a handful of GETs of it, however many reconciles', async () => {
    provider = await startFakeProvider(2);
    const { user, secretGets } = provider;
    await runUntil(user, () => provisioned(user), 'three machines provisioned');
    // Each machine's reconciles each read the Secret (a dozen or more a machine); from the API
    // server only until its informer synced, and once more for the claim.
    expect(secretGets()).toBeLessThanOrEqual(4);
  }, 60_000);

  it('connects with a rotated Secret at the next reconcile, without a GET of it', async () => {
    provider = await startFakeProvider(2);
    const { user, secretGets } = provider;
    await runUntil(user, () => provisioned(user), 'three machines provisioned');
    expect(tokenLogins()).toBe(0);
    const gets = secretGets();
    // Rotated to an API token: only a read of the new data can log in with it.
    await user.client.patch(Secret, { namespace: NAMESPACE, name: CREDENTIALS }, 'merge', {
      data: { username: null, password: null, refreshToken: b64('alice-api-token') },
    });
    await runUntil(user, () => tokenLogins() > 0, 'a login with the rotated API token');
    expect(secretGets()).toBe(gets);
  }, 60_000);
});

describe('CredentialsSecrets', () => {
  it('reads the API server without informers, and says undefined for a missing Secret', async () => {
    const cluster = new FakeCluster({ kinds: [Secret] });
    const client = new Client(cluster);
    await client.create(Secret, { metadata: { name: 's', namespace: 'a' }, data: { k: b64('v') } });
    const secrets = new CredentialsSecrets(client);
    expect((await secrets.get({ namespace: 'a', name: 's' }))?.data).toEqual({ k: b64('v') });
    expect(await secrets.get({ namespace: 'a', name: 'gone' })).toBeUndefined();
    expect(cluster.requestCount('get')).toBe(2);
  });
});
