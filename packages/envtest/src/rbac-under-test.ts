/**
 * An operator's own identity on a test control plane: its ServiceAccount, bound to exactly the
 * RBAC objects given (its generated `deploy/rbac.yaml`), so a test runs it with nothing more.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { ControlPlane } from './control-plane.js';
import type { ManifestObject } from './manifests.js';

/** Whose identity. */
export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

/**
 * Creates the ServiceAccount (and its namespace) and the RBAC objects as the admin, and returns a
 * KubeConfig that authenticates as that ServiceAccount: every request it sends is allowed by those
 * objects or refused (403). Objects that exist already are left as they are.
 */
export async function serviceAccountUnder(
  plane: ControlPlane,
  serviceAccount: ServiceAccountRef,
  rbac: readonly ManifestObject[],
): Promise<KubeConfig & { path: string }> {
  const { namespace, name } = serviceAccount;
  const namespaces = new Set([
    namespace,
    ...rbac.flatMap((o) => (o.metadata?.namespace ? [o.metadata.namespace] : [])),
  ]);
  await plane.createObjects(
    [
      ...[...namespaces].map((ns) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })),
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { namespace, name } },
      ...rbac,
    ],
    { ignoreExisting: true },
  );
  return plane.serviceAccountKubeConfig(namespace, name);
}
