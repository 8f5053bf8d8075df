import { randomBytes } from 'node:crypto';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, inject } from 'vitest';
import { ControlPlane, type StartOptions } from '../control-plane.js';
import type {} from './global-setup.js';

/** The shared control plane as one test file sees it. Fields are set once `beforeAll` has run. */
export interface SharedControlPlane {
  /** Handle to the shared plane: `installCRDs`, `userKubeConfig`; not restart, compact or stop. */
  plane: ControlPlane;
  /** The admin's KubeConfig (client-node's; see {@link ControlPlane.kubeConfig}). */
  kubeConfig: KubeConfig;
  /** A namespace created for this test file and deleted after it. */
  namespace: string;
}

/**
 * Registers `beforeAll`/`afterAll` hooks that attach to the run's shared control plane and give
 * this test file a fresh namespace. Tests that restart or compact start their own ControlPlane.
 *
 * Without the global setup (`globalSetup: ['@capstan/envtest/vitest/global-setup']` in the vitest
 * config), the file starts a control plane of its own and stops it after its tests: correct, but
 * a few seconds per file instead of once per run.
 */
export function useControlPlane(prefix = 'test'): SharedControlPlane {
  const shared = {} as SharedControlPlane;
  let own: ControlPlane | undefined;
  beforeAll(async () => {
    const info = inject('capstanEnvtest');
    if (info) shared.plane = await ControlPlane.attach(info);
    else shared.plane = own = await ControlPlane.start();
    shared.kubeConfig = shared.plane.kubeConfig;
    shared.namespace = await createNamespace(shared.kubeConfig, prefix);
  });
  afterAll(async () => {
    // The namespace controller finishes the deletion in the background.
    if (shared.namespace) {
      await shared.kubeConfig
        .makeApiClient(CoreV1Api)
        .deleteNamespace({ name: shared.namespace })
        .catch(() => {});
    }
    await own?.stop();
  });
  return shared;
}

/**
 * Like {@link useControlPlane}, but this test file gets a control plane of its own, started in
 * `beforeAll` with `options` (e.g. `{ controllerManager: true, scheduler: true, kwok: true }` for
 * nodes that run pods) and stopped in `afterAll`. For tests whose nodes and scheduling must not
 * meet other files' objects.
 */
export function useOwnControlPlane(options: StartOptions, prefix = 'test'): SharedControlPlane {
  const own = {} as SharedControlPlane;
  beforeAll(async () => {
    own.plane = await ControlPlane.start(options);
    own.kubeConfig = own.plane.kubeConfig;
    own.namespace = await createNamespace(own.kubeConfig, prefix);
  });
  afterAll(async () => {
    await own.plane?.stop();
  });
  return own;
}

/** Creates a namespace named `<prefix>-<random>` and answers its name. */
async function createNamespace(kubeConfig: KubeConfig, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  await kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  return name;
}
