/**
 * The operators' own identities: the demo applies their deploy/rbac.yaml as published and runs the
 * coordinator and every agent as their service accounts, so a permission the manifests forgot
 * fails the demo instead of hiding behind an admin certificate.
 */
import { readFileSync } from 'node:fs';
import type { ControlPlane } from '@capstan/envtest';
import {
  Client,
  ClusterRole,
  ClusterRoleBinding,
  HttpTransport,
  isForbidden,
  type KubeObject,
  type ResourceType,
  Role,
  RoleBinding,
  ServiceAccount,
} from '@capstan/runtime';
import { eventually } from '@capstan/runtime/testing';
import type { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';

const KINDS: Record<string, ResourceType> = {
  ServiceAccount,
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
} as unknown as Record<string, ResourceType>;

/** Creates every object of a manifest file (RBAC kinds only). */
export async function applyManifest(admin: Client, path: string): Promise<void> {
  const objects = parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJSON() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
  for (const object of objects) {
    const type = KINDS[object.kind ?? ''];
    if (!type) throw new Error(`${path}: the demo does not apply ${object.kind} objects`);
    await admin.create(type, object);
  }
}

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
