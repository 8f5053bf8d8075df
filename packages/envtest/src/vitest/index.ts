import { randomBytes } from 'node:crypto';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, inject } from 'vitest';
import { ControlPlane } from '../control-plane.js';
import type {} from './global-setup.js';

/** The shared control plane as one test file sees it. Fields are set once `beforeAll` has run. */
export interface SharedControlPlane {
  /** Handle to the shared plane: `installCRDs`, `userKubeConfig`; not restart, compact or stop. */
  plane: ControlPlane;
  /** The admin's KubeConfig. */
  kubeConfig: KubeConfig;
  /** A namespace created for this test file and deleted after it. */
  namespace: string;
}

/**
 * Registers `beforeAll`/`afterAll` hooks that attach to the run's shared control plane and give
 * this test file a fresh namespace. Tests that restart or compact start their own ControlPlane.
 */
export function useControlPlane(prefix = 'test'): SharedControlPlane {
  const shared = {} as SharedControlPlane;
  beforeAll(async () => {
    shared.plane = await ControlPlane.attach(inject('capstanEnvtest'));
    shared.kubeConfig = shared.plane.kubeConfig;
    shared.namespace = `${prefix}-${randomBytes(4).toString('hex')}`;
    await shared.kubeConfig
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: shared.namespace } } });
  });
  afterAll(async () => {
    if (!shared.namespace) return;
    // The namespace controller finishes the deletion in the background.
    await shared.kubeConfig
      .makeApiClient(CoreV1Api)
      .deleteNamespace({ name: shared.namespace })
      .catch(() => {});
  });
  return shared;
}
