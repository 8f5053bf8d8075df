/**
 * Which credentials Secret a VCDCluster may use. A Secret in the VCDCluster's own namespace is
 * always allowed; one in another namespace only when a cluster-scoped VCDClusterIdentity names
 * that Secret and its `allowedNamespaces.selector` selects the VCDCluster's namespace (as CAPV's
 * VSphereClusterIdentity). Otherwise whoever may create a VCDCluster in one namespace could make
 * the provider act with another tenant's VCD credentials.
 */
import { matchesSelector } from '@capstan/runtime';
import type { VCDCluster, VCDClusterIdentity } from './api/types.js';

/** Namespace and name of a Secret. */
export interface SecretKey {
  namespace: string;
  name: string;
}

/** The Secret a VCDCluster names (its own namespace unless `secretRef.namespace` says otherwise). */
export const credentialsSecretOf = (vcdCluster: VCDCluster): SecretKey => {
  const ref = vcdCluster.spec.userContext.secretRef;
  return { namespace: ref.namespace || (vcdCluster.metadata.namespace as string), name: ref.name };
};

/** The outcome of {@link credentialsAccess}. */
export type CredentialsAccess =
  | { allowed: true; identity?: string }
  | { allowed: false; reason: 'CredentialsNotAllowed'; message: string };

/**
 * Whether a VCDCluster in `namespace` (labelled `namespaceLabels`) may use `secret`. An identity
 * without a selector allows no namespace; an empty selector (`{}`) allows every namespace.
 */
export function credentialsAccess(
  namespace: string,
  namespaceLabels: Readonly<Record<string, string>>,
  secret: SecretKey,
  identities: readonly VCDClusterIdentity[],
): CredentialsAccess {
  if (secret.namespace === namespace) return { allowed: true };
  const naming = identities.filter(
    (i) => i.spec.secretRef.namespace === secret.namespace && i.spec.secretRef.name === secret.name,
  );
  const allowing = naming.find((i) => {
    const selector = i.spec.allowedNamespaces?.selector;
    return selector !== undefined && matchesSelector(selector, namespaceLabels);
  });
  if (allowing) return { allowed: true, identity: allowing.metadata.name as string };
  const why =
    naming.length === 0
      ? 'no VCDClusterIdentity names it'
      : `VCDClusterIdentity ${naming.map((i) => i.metadata.name).join(', ')} does not select namespace ${namespace}`;
  return {
    allowed: false,
    reason: 'CredentialsNotAllowed',
    message: `Secret ${secret.namespace}/${secret.name} is outside namespace ${namespace} and ${why}`,
  };
}

/** Whether `vcdCluster` names `secret` and still holds VCD objects (its finalizer is on). */
export const holdsSecret = (vcdCluster: VCDCluster, secret: SecretKey, finalizer: string): boolean => {
  const key = credentialsSecretOf(vcdCluster);
  return (
    key.namespace === secret.namespace &&
    key.name === secret.name &&
    vcdCluster.metadata.finalizers?.includes(finalizer) === true
  );
};
