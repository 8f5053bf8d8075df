/**
 * deploy/admission-policy.yaml for a test namespace: the service account in its user-name match
 * moved into the namespace, the cluster-scoped names suffixed, and a wait until it is in force.
 */
import { fileURLToPath } from 'node:url';
import { readManifests } from '@capstan/envtest';
import type { SharedControlPlane } from '@capstan/envtest/vitest';
import {
  type ApiError,
  Client,
  defineResource,
  isForbidden,
  type KubeConfig,
  type KubeObject,
} from '@capstan/runtime';
import { ClusterRole, ClusterRoleBinding, HttpTransport, Node } from '@capstan/runtime/client';
import { eventually } from '@capstan/runtime/testing';

const POLICY_FILE = fileURLToPath(new URL('../deploy/admission-policy.yaml', import.meta.url));

const plurals: Record<string, string> = {
  ValidatingAdmissionPolicy: 'validatingadmissionpolicies',
  ValidatingAdmissionPolicyBinding: 'validatingadmissionpolicybindings',
};

/** The policy objects as shipped. */
export function shippedPolicy(): Array<KubeObject & { spec: Record<string, unknown> }> {
  return readManifests(POLICY_FILE) as Array<KubeObject & { spec: Record<string, unknown> }>;
}

/** The policy and its binding for the coordinator's service account in `namespace`. */
export function policyFor(namespace: string): KubeObject[] {
  return shippedPolicy().map((o) => {
    const text = JSON.stringify(o).replaceAll(
      'system:serviceaccount:capstan-system:',
      `system:serviceaccount:${namespace}:`,
    );
    const obj = JSON.parse(text) as KubeObject & { spec: { policyName?: string } };
    obj.metadata.name = `${obj.metadata.name}-${namespace}`;
    if (obj.spec.policyName) obj.spec.policyName = `${obj.spec.policyName}-${namespace}`;
    return obj;
  });
}

/** Deletes what {@link policyFor} made. */
export async function removePolicy(admin: Client, objects: KubeObject[]): Promise<void> {
  for (const o of objects) {
    const type = defineResource({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      kind: o.kind as string,
      plural: plurals[o.kind as string] as string,
      namespaced: false,
    });
    await admin.deleteIfExists(type, { name: o.metadata.name ?? '' });
  }
}

/** Waits until the policy denies `coordinator` a label edit on `node` (a dry run). */
export async function policyInForce(coordinator: Client, node: string): Promise<void> {
  await eventually(
    async () => {
      try {
        await coordinator.patch(
          Node,
          { name: node },
          'merge',
          { metadata: { labels: { probe: 'x' } } },
          { dryRun: true },
        );
        return false;
      } catch (err) {
        return isForbidden(err) && (err as ApiError).message.includes('capstan-coordinator-nodes');
      }
    },
    { what: 'the coordinator admission policy to take effect', timeoutMs: 20_000 },
  );
}

/**
 * The coordinator's identity in a test namespace, as deploy/ ships it: its service account with
 * the RBAC of deploy/rbac.yaml and the admission policy, in force. Answers its kubeconfig and a
 * clean-up of the cluster-scoped objects.
 */
export async function coordinatorIdentity(
  env: SharedControlPlane,
  probeNode: string,
): Promise<{ kubeConfig: KubeConfig; cleanUp: () => Promise<void> }> {
  const sa = 'capstan-coordinator';
  const suffix = `-${env.namespace}`;
  const rbac = readManifests(fileURLToPath(new URL('../deploy/rbac.yaml', import.meta.url))) as Array<
    KubeObject & { subjects?: Array<{ namespace?: string }>; roleRef?: { name: string } }
  >;
  for (const obj of rbac) {
    const clusterScoped = obj.kind === 'ClusterRole' || obj.kind === 'ClusterRoleBinding';
    if (clusterScoped) obj.metadata.name = `${obj.metadata.name}${suffix}`;
    else obj.metadata.namespace = env.namespace;
    if (obj.kind === 'ClusterRoleBinding' && obj.roleRef) obj.roleRef.name = `${sa}${suffix}`;
    for (const s of obj.subjects ?? []) s.namespace = env.namespace;
  }
  await env.plane.createObjects(rbac);
  const policy = policyFor(env.namespace);
  await env.plane.createObjects(policy);
  const kubeConfig = await env.plane.serviceAccountKubeConfig(env.namespace, sa);
  await policyInForce(new Client(new HttpTransport(kubeConfig)), probeNode);
  const admin = new Client(new HttpTransport(env.kubeConfig));
  return {
    kubeConfig,
    cleanUp: async () => {
      await removePolicy(admin, policy);
      await admin.deleteIfExists(ClusterRole, { name: `${sa}${suffix}` });
      await admin.deleteIfExists(ClusterRoleBinding, { name: `${sa}${suffix}` });
    },
  };
}
