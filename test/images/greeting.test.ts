/**
 * The Greeting example's image, built from examples/greeting/Dockerfile and run as
 * deploy/controller.yaml's Deployment runs it (uid 65532, read-only root file system, every
 * capability dropped, no privilege escalation, its args) as its ServiceAccount with the generated
 * deploy/rbac.yaml: ready, then it
 * reconciles a Greeting into its ConfigMap, and on SIGTERM exits 0.
 */
import { readFileSync } from 'node:fs';
import { readManifests } from '@capstan/envtest';
import { useOwnControlPlane } from '@capstan/envtest/vitest';
import { Client } from '@capstan/runtime';
import { ConfigMap, HttpTransport } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { GreetingType } from '../../examples/greeting/src/index.js';
import { root } from '../packaging/packages.js';
import { build, type ImageUnderTest, start } from './fixture.js';
import { imageName } from './podman.js';

const image: ImageUnderTest = {
  tag: imageName('greeting'),
  dockerfile: 'examples/greeting/Dockerfile',
  manifest: 'examples/greeting/deploy/controller.yaml',
};
// Built before the control plane starts: a cold build takes minutes.
beforeAll(() => build(image), 900_000);
const env = useOwnControlPlane({}, 'greeting-image');

beforeAll(async () => {
  await env.plane.installCRDs([`${root}/examples/greeting/deploy/crd.yaml`]);
  const objects = readManifests(`${root}/${image.manifest}`).filter((o) => o.kind !== 'Deployment');
  await env.plane.createObjects([...objects, ...readManifests(`${root}/examples/greeting/deploy/rbac.yaml`)]);
});

describe('the greeting image', () => {
  it('gets ready and reconciles a Greeting as its ServiceAccount', async () => {
    const kubeconfig = await env.plane.serviceAccountKubeConfig('greeting-system', 'greeting-controller');
    const { container, stop } = await start(image, {
      kubeconfig: readFileSync(kubeconfig.path, 'utf8'),
      fields: { 'metadata.namespace': 'greeting-system' },
    });
    try {
      const client = new Client(new HttpTransport(env.kubeConfig));
      await client.create(GreetingType, {
        metadata: { name: 'hello', namespace: env.namespace },
        spec: { message: 'Hello', recipients: ['Ada'] },
      });
      const cm = await eventually(
        () => client.get(ConfigMap, { namespace: env.namespace, name: 'hello-greeting' }),
        { what: 'the ConfigMap hello-greeting', timeoutMs: 60_000, details: () => container.logs() },
      );
      expect(cm.data).toEqual({ greeting: 'Hello, Ada!' });
      expect((await container.get('metrics', '/metrics')).body).toContain(
        'controller_runtime_reconcile_total',
      );
    } finally {
      expect(await stop(), container.logs()).toBe(0);
    }
  }, 180_000);
});
