/**
 * The version operator's image, built from packages/version-operator/Dockerfile and run as
 * deploy/operator.yaml's Deployment runs it (uid 65532, read-only root file system, every
 * capability dropped, its args) as its ServiceAccount: ready, then it reconciles the example
 * RebootStack into the coordinator's Deployment, from the deploy/ manifests the image carries,
 * and reports it in the stack's status. (No kubelet runs pods here, so the rollout stops there:
 * the agent's DaemonSet waits for an available coordinator.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readManifests } from '@capstan/envtest';
import { useOwnControlPlane } from '@capstan/envtest/vitest';
import { Client } from '@capstan/runtime';
import { Deployment, HttpTransport } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { type RebootStack, RebootStackType } from '../../packages/version-operator/src/index.js';
import { root } from '../packaging/packages.js';
import { build, type ImageUnderTest, start } from './fixture.js';
import { imageName } from './podman.js';

const NS = 'capstan-system';
const image: ImageUnderTest = {
  tag: imageName('version-operator'),
  dockerfile: 'packages/version-operator/Dockerfile',
  manifest: 'packages/version-operator/deploy/operator.yaml',
};
const deploy = (file: string) => readManifests(join(root, 'packages', file));

beforeAll(() => build(image), 900_000);
const env = useOwnControlPlane({}, 'version-operator-image');

beforeAll(async () => {
  await env.plane.createObjects([
    ...deploy('coordinator/deploy/namespace.yaml'),
    ...deploy('version-operator/deploy/crds/rebootstacks.yaml'),
    ...deploy('version-operator/deploy/rbac.yaml'),
  ]);
});

describe('the version operator image', () => {
  it("gets ready and reconciles a RebootStack into the coordinator's Deployment", async () => {
    const kubeconfig = await env.plane.serviceAccountKubeConfig(NS, 'capstan-version-operator');
    const { container, stop } = await start(image, {
      kubeconfig: readFileSync(kubeconfig.path, 'utf8'),
      fields: { 'metadata.namespace': NS },
    });
    try {
      const admin = new Client(new HttpTransport(env.kubeConfig));
      const [stack] = deploy('version-operator/deploy/examples/rebootstack.yaml');
      await admin.create(RebootStackType, stack as unknown as RebootStack);
      const what = { timeoutMs: 60_000, details: () => container.logs() };
      const deployment = await eventually(
        () => admin.get(Deployment, { namespace: NS, name: 'capstan-coordinator' }),
        {
          ...what,
          what: 'the coordinator Deployment',
        },
      );
      expect(deployment.spec?.template.spec?.containers[0]?.image).toBe(imageName('coordinator'));
      const reported = await eventually(
        async () => {
          const s = await admin.get(RebootStackType, { name: 'capstan' });
          return s.status?.observedGeneration === 1 && (s.status.conditions?.length ?? 0) > 0 ? s : undefined;
        },
        { ...what, what: 'the stack status' },
      );
      // No kubelet runs the pods here: the coordinator never becomes available, so the stack
      // waits for it (the agent's DaemonSet comes after), neither available nor degraded.
      const status = (type: string) => reported.status?.conditions?.find((c) => c.type === type)?.status;
      expect(status('Degraded'), JSON.stringify(reported.status)).toBe('False');
      expect(status('Available'), JSON.stringify(reported.status)).toBe('False');
    } finally {
      expect(await stop(), container.logs()).toBe(0);
    }
  }, 180_000);
});
