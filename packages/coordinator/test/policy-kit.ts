/**
 * deploy/admission-policy.yaml for a test namespace: the service account in its user-name match
 * moved into the namespace, the cluster-scoped names suffixed, and a wait until it is in force.
 */
import { fileURLToPath } from 'node:url';
import { readManifests } from '@capstan/envtest';
import { type ApiError, type Client, defineResource, isForbidden, type KubeObject } from '@capstan/runtime';
import { Node } from '@capstan/runtime/client';
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
