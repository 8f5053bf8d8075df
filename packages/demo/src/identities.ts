/**
 * The operators' own identities: the demo runs the coordinator and every agent as their service
 * accounts, bound by their published deploy/rbac.yaml, so a permission the manifests forgot fails
 * the demo instead of hiding behind an admin certificate.
 */
import type { ControlPlane } from '@capstan/envtest';
import { Client, isForbidden } from '@capstan/runtime';
import { HttpTransport } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import type { KubeConfig } from '@kubernetes/client-node';

/**
 * A KubeConfig that authenticates as service account `namespace/name`, once `probe` shows its
 * RBAC is in force.
 */
export async function serviceAccountKubeConfig(
  plane: ControlPlane,
  namespace: string,
  name: string,
  probe: (client: Client) => Promise<unknown>,
): Promise<KubeConfig> {
  const kubeConfig = await plane.serviceAccountKubeConfig(namespace, name);
  const client = new Client(new HttpTransport(kubeConfig));
  // RBAC reaches the authorizer through an informer: a fresh binding may take a moment.
  await eventually(
    async () => {
      try {
        await probe(client);
        return true;
      } catch (err) {
        if (isForbidden(err)) return false;
        throw err;
      }
    },
    { what: `the RBAC of ${namespace}/${name} to take effect`, timeoutMs: 15_000 },
  );
  return kubeConfig;
}
