import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { readManifests } from '../src/index.js';
import { useControlPlane } from '../src/vitest/index.js';

const env = useControlPlane('envtest-manifests');
const dir = mkdtempSync(join(tmpdir(), 'capstan-manifests-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('manifests', () => {
  it('reads every document of a YAML file and creates each kind where discovery says it lives', async () => {
    const path = join(dir, 'objects.yaml');
    writeFileSync(
      path,
      `apiVersion: v1
kind: ServiceAccount
metadata:
  name: robot
  namespace: ${env.namespace}
---
# an empty document is skipped
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ${env.namespace}-reader
rules:
  - apiGroups: [""]
    resources: ["configmaps"]
    verbs: ["get"]
`,
    );
    const objects = readManifests(path);
    expect(objects.map((o) => o.kind)).toEqual(['ServiceAccount', 'ClusterRole']);
    await env.plane.createObjects(objects);

    const sa = await env.kubeConfig
      .makeApiClient(CoreV1Api)
      .readNamespacedServiceAccount({ namespace: env.namespace, name: 'robot' });
    expect(sa.metadata?.name).toBe('robot');
    const role = await env.kubeConfig
      .makeApiClient(RbacAuthorizationV1Api)
      .readClusterRole({ name: `${env.namespace}-reader` });
    expect(role.rules?.[0]?.resources).toEqual(['configmaps']);

    // Existing objects: an error, unless asked to leave them be.
    await expect(env.plane.createObjects(objects)).rejects.toThrow(/creating ServiceAccount robot/);
    await expect(env.plane.createObjects(objects, { ignoreExisting: true })).resolves.toBeUndefined();
  });

  it('says so when the server has no such kind', async () => {
    await expect(
      env.plane.createObjects([{ apiVersion: 'v1', kind: 'Gadget', metadata: { name: 'g' } }]),
    ).rejects.toThrow('the API server serves no Gadget in v1');
  });
});
