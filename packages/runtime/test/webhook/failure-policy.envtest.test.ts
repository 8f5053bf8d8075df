/**
 * What the API server does around our server: it follows a rotated serving certificate without a
 * restart, and when the server is down each webhook's failure policy decides (Fail denies, Ignore
 * admits). A mutating raw handler marks the ConfigMaps it sees, so a test can tell a call happened.
 */
import type { WebhookConfiguration, WebhookInstallation } from '@capstan/envtest';
import { useControlPlane } from '@capstan/envtest/vitest';
import { ApiError, Client } from '@capstan/runtime';
import { ConfigMap, HttpTransport } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { WebhookServer } from '@capstan/runtime/webhook';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedFingerprint } from './https-client.js';

const env = useControlPlane('failure-policy');
const SEEN = 'webhook.test.capstan.dev/seen';

const webhook = (policy: 'Fail' | 'Ignore') => ({
  name: `${policy.toLowerCase()}.webhook.test.capstan.dev`,
  clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/mark' } },
  rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
  objectSelector: { matchLabels: { policy: policy.toLowerCase() } },
  failurePolicy: policy,
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  timeoutSeconds: 5,
});
const configuration: WebhookConfiguration = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'MutatingWebhookConfiguration',
  metadata: { name: 'failure-policy.webhook.test.capstan.dev' },
  webhooks: [webhook('Fail'), webhook('Ignore')],
};

let hooks: WebhookInstallation;
let server: WebhookServer;
let client: Client;
let count = 0;

beforeAll(async () => {
  hooks = await env.plane.installWebhooks({ mutating: [configuration], namespace: env.namespace });
  server = new WebhookServer({
    host: hooks.host,
    port: hooks.port,
    certDir: hooks.certDir,
    certPollIntervalMs: 500,
  });
  server.addAdmission('/mark', () => ({
    allowed: true,
    patch: [{ op: 'add', path: '/metadata/annotations', value: { [SEEN]: 'true' } }],
  }));
  await server.start();
  client = new Client(new HttpTransport(env.kubeConfig));
});
afterAll(async () => {
  await server?.stop();
  await hooks?.uninstall();
});

const create = (policy: string) =>
  client.create(ConfigMap, {
    metadata: { namespace: env.namespace, name: `${policy}-${++count}`, labels: { policy } },
  });

describe('the API server calling our webhook server', () => {
  it('calls the server for both policies while it is up', async () => {
    const marked = await eventually(
      async () => {
        const cm = await create('fail');
        return cm.metadata.annotations?.[SEEN] === 'true' ? cm : undefined;
      },
      { what: 'the API server calling the webhook', timeoutMs: 30_000 },
    );
    expect(marked.metadata.labels).toEqual({ policy: 'fail' });
    expect((await create('ignore')).metadata.annotations?.[SEEN]).toBe('true');
  });

  it('follows a serving certificate rotated on disk to a new CA, without a restart', async () => {
    const before = await servedFingerprint(hooks.port);
    // First the API server trusts only a new CA: with the old certificate served, calls fail and
    // the Fail policy denies (so from here on, a marked object proves the new certificate served).
    await hooks.trustNewAuthority();
    const refused = await eventually(
      async () => {
        const outcome = await create('fail').catch((e: unknown) => e);
        return outcome instanceof ApiError ? outcome : undefined;
      },
      { what: 'the old certificate refused', timeoutMs: 20_000 },
    );
    expect(refused.message).toMatch(/failed calling webhook .*(x509|certificate)/);
    await hooks.rotate();
    const cm = await eventually(
      async () => {
        const created = await create('fail');
        return created.metadata.annotations?.[SEEN] === 'true' ? created : undefined;
      },
      { what: 'a call accepted with the rotated certificate', timeoutMs: 20_000 },
    );
    expect(cm.metadata.name).toMatch(/^fail-/);
    expect(await servedFingerprint(hooks.port)).not.toBe(before);
  });

  it('denies under Fail and admits unmarked under Ignore when the server is down', async () => {
    await server.stop();
    const error = await create('fail').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toMatch(/failed calling webhook "fail\.webhook\.test\.capstan\.dev"/);
    const admitted = await create('ignore');
    expect(admitted.metadata.annotations?.[SEEN]).toBeUndefined();
  });
});
