/**
 * An operator's own identity on a test control plane: its ServiceAccount, bound to exactly the
 * RBAC objects given (its generated `deploy/rbac.yaml`), so a test runs it with nothing more.
 */

import { Client, type ClusterAccess, isForbidden } from '@capstan/runtime';
import { SelfSubjectAccessReview } from '@capstan/runtime/api/authorization/v1';
import { HttpTransport } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ControlPlane } from './control-plane.js';
import type { ManifestObject } from './manifests.js';

/** Whose identity. */
export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

/**
 * Resolves with `kubeConfig` once `probe`, sent as it, is allowed: roles and bindings reach the
 * apiserver's authorizer through its informers, a moment after they are written. Until then the
 * probe is refused (403) or resolves `false`; any other error fails at once.
 */
export async function whenAuthorized<C extends ClusterAccess>(
  kubeConfig: C,
  who: string,
  probe: (client: Client) => Promise<unknown>,
): Promise<C> {
  const client = new Client(new HttpTransport(kubeConfig));
  await eventually(
    async () => {
      try {
        return (await probe(client)) !== false;
      } catch (err) {
        if (isForbidden(err)) return false;
        throw err;
      }
    },
    { what: `the RBAC of ${who} to take effect`, timeoutMs: 15_000 },
  );
  return kubeConfig;
}

type Rule = { apiGroups?: string[]; resources?: string[]; verbs?: string[]; resourceNames?: string[] };

/** One request each role bound to `account` allows (its first rule's first verb), as access reviews ask it. */
function boundRequests(rbac: readonly ManifestObject[], account: ServiceAccountRef) {
  const isAccount = (s: { kind?: string; name?: string; namespace?: string }) =>
    s.kind === 'ServiceAccount' && s.name === account.name && s.namespace === account.namespace;
  const bound = new Set(
    rbac.flatMap((o) => {
      const subjects = (o.subjects ?? []) as Array<Record<string, string>>;
      const ref = o.roleRef as { kind?: string; name?: string } | undefined;
      const where = o.kind === 'RoleBinding' ? (o.metadata?.namespace ?? '') : '';
      return ref && subjects.some(isAccount) ? [`${ref.kind}/${where}/${ref.name}`] : [];
    }),
  );
  return rbac.flatMap((o) => {
    const namespace = o.kind === 'Role' ? (o.metadata?.namespace ?? '') : '';
    const rule = (o.rules as Rule[] | undefined)?.[0];
    if (!rule || !bound.has(`${o.kind}/${namespace}/${o.metadata?.name}`)) return [];
    const [resource, subresource] = (rule.resources?.[0] ?? '').split('/');
    return [
      {
        verb: rule.verbs?.[0],
        group: rule.apiGroups?.[0] ?? '',
        resource,
        ...(subresource ? { subresource } : {}),
        ...(namespace ? { namespace } : {}),
        ...(rule.resourceNames?.[0] ? { name: rule.resourceNames[0] } : {}),
      },
    ];
  });
}

/**
 * Creates the ServiceAccount (and its namespace) and the RBAC objects as the admin, and returns a
 * KubeConfig that authenticates as that ServiceAccount once every role bound to it is in force
 * (access reviews of one rule of each): from then on, every request it sends is allowed by those
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
  const kubeConfig = await plane.serviceAccountKubeConfig(namespace, name);
  const requests = boundRequests(rbac, serviceAccount);
  return whenAuthorized(kubeConfig, `${namespace}/${name}`, async (client) => {
    for (const resourceAttributes of requests) {
      const review = await client.create(SelfSubjectAccessReview, {
        metadata: {},
        spec: { resourceAttributes },
      });
      if (!review.status?.allowed) return false;
    }
    return true;
  });
}
