/**
 * kube-controller-manager's garbage collector knows a custom kind at once, not at its next
 * discovery (every 30 s): CRDs given to `ControlPlane.start` are installed before it starts, and
 * `installCRDs` on a plane of one's own restarts it. Deleting a custom owner then removes its
 * dependents in well under a second.
 */
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ControlPlane, testCrd } from '../src/index.js';

const crd = (plural: string, kind: string) =>
  testCrd({ group: 'gc.capstan.dev', version: 'v1', kind, plural, namespaced: true }, { status: false });

let plane: ControlPlane;
beforeAll(async () => {
  plane = await ControlPlane.start({
    crds: [crd('owners', 'Owner')],
    controllerManager: ['garbagecollector'],
  });
});
afterAll(async () => {
  await plane?.stop();
});

/** Deletes an owner of `kind` with a dependent ConfigMap; answers how long the dependent outlived it. */
async function cascade(plural: string, kind: string): Promise<number> {
  const namespace = 'default';
  const custom = plane.kubeConfig.makeApiClient(CustomObjectsApi);
  const core = plane.kubeConfig.makeApiClient(CoreV1Api);
  const ref = { group: 'gc.capstan.dev', version: 'v1', namespace, plural };
  const owner = (await custom.createNamespacedCustomObject({
    ...ref,
    body: { apiVersion: 'gc.capstan.dev/v1', kind, metadata: { name: 'o' } },
  })) as { metadata: { uid: string } };
  const name = `dependent-of-${plural}`;
  await core.createNamespacedConfigMap({
    namespace,
    body: {
      metadata: {
        name,
        ownerReferences: [{ apiVersion: 'gc.capstan.dev/v1', kind, name: 'o', uid: owner.metadata.uid }],
      },
    },
  });
  const started = Date.now();
  await custom.deleteNamespacedCustomObject({ ...ref, name: 'o', propagationPolicy: 'Background' });
  let elapsed = 0;
  // The old path (the collector's next discovery) takes 30-40 s; stop looking after 15.
  while (elapsed < 15_000) {
    const gone = await core.readNamespacedConfigMap({ namespace, name }).then(
      () => false,
      (err: { code?: number }) => err.code === 404,
    );
    elapsed = Date.now() - started;
    if (gone) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  process.stderr.write(`[gc] ${name} gone ${elapsed} ms after its owner\n`);
  return elapsed;
}

it('cascades the deletion of an owner whose CRD came with start()', async () => {
  expect(await cascade('owners', 'Owner')).toBeLessThan(5_000);
}, 60_000);

it('cascades the deletion of an owner whose CRD was installed after start', async () => {
  await plane.installCRDs([crd('latecomers', 'Latecomer')]);
  expect(await cascade('latecomers', 'Latecomer')).toBeLessThan(5_000);
}, 60_000);
