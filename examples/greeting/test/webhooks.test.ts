/**
 * The Greeting webhooks with the real API server calling the manager's webhook server: defaults on
 * create, a denied update with our message and field path, a vetoed delete.
 */
import { fileURLToPath } from 'node:url';
import { readManifests, type WebhookInstallation } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { ApiError, Client, Manager } from '@capstan/runtime';
import { ConfigMap, HttpTransport } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addGreeting,
  DEFAULT_MESSAGE,
  type Greeting,
  GreetingType,
  PROTECTED_ANNOTATION,
} from '../src/index.js';

const env = useControlPlane('greeting-webhooks');
const deploy = (file: string) => fileURLToPath(new URL(`../deploy/${file}`, import.meta.url));
let hooks: WebhookInstallation;
let client: Client;
let manager: Manager;
const stop = new AbortController();
let running: Promise<void>;

beforeAll(async () => {
  await env.plane.installCRDs([deploy('crd.yaml')]);
  hooks = await env.plane.installWebhooks({
    mutating: [deploy('webhooks.yaml')],
    validating: [deploy('webhooks.yaml')],
    namespace: env.namespace,
  });
  manager = Manager.create({
    kubeConfig: env.kubeConfig,
    namespace: env.namespace,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logLevel: 'silent',
    webhook: { host: hooks.host, port: hooks.port, certDir: hooks.certDir },
  });
  addGreeting(manager, { webhooks: true });
  running = manager.start(stop.signal);
  client = new Client(new HttpTransport(env.kubeConfig));
  // The API server picks new webhook configurations up within moments: wait until it calls ours.
  await eventually(
    async () => {
      const probe = { metadata: { namespace: env.namespace, name: 'probe' }, spec: {} } as Greeting;
      return (await client.create(GreetingType, probe, { dryRun: true })).spec.message === DEFAULT_MESSAGE;
    },
    { what: 'the defaulting webhook called', timeoutMs: 30_000 },
  );
});
afterAll(async () => {
  stop.abort();
  await running;
  await hooks?.uninstall();
});

const key = (name: string) => ({ namespace: env.namespace, name });
const denial = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('the request was admitted');
    },
    (err: unknown) => {
      if (!(err instanceof ApiError)) throw err;
      return err;
    },
  );

describe('the Greeting webhooks', () => {
  it('default a Greeting created without a message, and the reconciler renders it', async () => {
    const created = await client.create(GreetingType, {
      metadata: key('plain'),
      spec: { recipients: ['  Ada ', 'Linus'] },
    } as Greeting);
    expect(created.spec).toEqual({ message: 'Hello', recipients: ['Ada', 'Linus'] });
    const cm = await eventually(() => client.get(ConfigMap, key('plain-greeting')), { timeoutMs: 15_000 });
    expect(cm.data?.greeting).toBe('Hello, Ada!\nHello, Linus!');
  });

  it('default on update too (a patch is an UPDATE to the webhooks)', async () => {
    const patched = await client.patch(GreetingType, key('plain'), 'merge', {
      spec: { recipients: ['Ada', ' Grace'] },
    });
    expect(patched.spec.recipients).toEqual(['Ada', 'Grace']);
    await client.patch(GreetingType, key('plain'), 'merge', { spec: { recipients: ['Ada', 'Linus'] } });
  });

  it('deny an update naming a recipient twice, with our message and the field path', async () => {
    // A patch, not an update: no resourceVersion to race the reconciler's status writes.
    const err = await denial(
      client.patch(GreetingType, key('plain'), 'merge', { spec: { recipients: ['Ada', 'Linus', 'Ada'] } }),
    );
    expect(err.code).toBe(422);
    expect(err.reason).toBe('Invalid');
    expect(err.message).toContain('admission webhook "vgreeting.example.capstan.dev" denied the request');
    expect(err.message).toContain('Greeting "plain" is invalid: spec.recipients[2]: Duplicate value: "Ada"');
    expect(err.status.details?.causes).toEqual([
      { field: 'spec.recipients[2]', message: 'Duplicate value: "Ada"', reason: 'FieldValueDuplicate' },
    ]);
    expect((await client.get(GreetingType, key('plain'))).spec.recipients).toEqual(['Ada', 'Linus']);
  });

  it('are configured as deploy/webhooks.yaml says, which is written from the same registrations', () => {
    const generated = manager.webhooks.configurations({
      service: { name: 'greeting-webhook', namespace: 'greeting-system' },
      mutatingName: 'greeting-defaulter',
      validatingName: 'greeting-validator',
    });
    expect(generated).toEqual(readManifests(deploy('webhooks.yaml')));
  });

  it('veto deleting a protected Greeting until the annotation is removed', async () => {
    await client.create(GreetingType, {
      metadata: { ...key('kept'), annotations: { [PROTECTED_ANNOTATION]: 'true' } },
      spec: { message: 'Hi' },
    });
    const err = await denial(client.delete(GreetingType, key('kept')));
    expect(err.code).toBe(403);
    expect(err.message).toContain(
      `Greeting kept is protected: remove the ${PROTECTED_ANNOTATION} annotation`,
    );
    expect((await client.get(GreetingType, key('kept'))).metadata.deletionTimestamp).toBeUndefined();

    await client.patch(GreetingType, key('kept'), 'merge', {
      metadata: { annotations: { [PROTECTED_ANNOTATION]: null } },
    });
    await client.delete(GreetingType, key('kept'));
  });
});
