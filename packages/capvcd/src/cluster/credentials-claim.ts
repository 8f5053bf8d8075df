/**
 * The credentials Secret held for as long as a VCDCluster has VCD objects: a finalizer keeps it
 * from going before the VMs and load balancer do (deleting a namespace removes everything at once),
 * and, in the VCDCluster's own namespace, an owner reference and clusterctl's move label take it
 * along on `clusterctl move`. Released when the VCDCluster's VCD objects are gone; the finalizer
 * stays while another VCDCluster still holds the same Secret.
 */
import { type Client, setOwnerReference } from '@capstan/runtime';
import { Secret } from '@capstan/runtime/client';
import { CLUSTER_FINALIZER, CREDENTIALS_FINALIZER, MOVE_LABEL } from '../api/keys.js';
import { type VCDCluster, VCDClusterType } from '../api/types.js';
import { credentialsSecretOf, holdsSecret } from '../credentials.js';
import { getOrUndefined } from '../scope.js';

const keyOf = (s: Secret) => ({ namespace: s.metadata.namespace as string, name: s.metadata.name as string });

/** Whether `secret` holds what {@link claimCredentials} adds for `vcdCluster`. */
function claimed(vcdCluster: VCDCluster, secret: Secret): boolean {
  const sameNamespace = secret.metadata.namespace === vcdCluster.metadata.namespace;
  const owned = secret.metadata.ownerReferences?.some((r) => r.uid === vcdCluster.metadata.uid) === true;
  const labelled = secret.metadata.labels?.[MOVE_LABEL] !== undefined;
  const finalized = secret.metadata.finalizers?.includes(CREDENTIALS_FINALIZER) === true;
  return finalized && (!sameNamespace || (owned && labelled));
}

/**
 * Adds what holds the Secret, if anything is missing (one write). `secret` may be a cached copy a
 * moment behind our own last claim: a claim is decided again on a fresh read, so it is not sent
 * twice, nor with a stale resourceVersion (a conflict would show in the VCDCluster's conditions).
 */
export async function claimCredentials(
  client: Client,
  vcdCluster: VCDCluster,
  secret: Secret,
): Promise<void> {
  if (claimed(vcdCluster, secret)) return;
  const fresh = await getOrUndefined(() => client.get(Secret, keyOf(secret), { direct: true }));
  if (!fresh || claimed(vcdCluster, fresh)) return;
  const metadata: Record<string, unknown> = {
    resourceVersion: fresh.metadata.resourceVersion,
    finalizers: [
      ...(fresh.metadata.finalizers ?? []).filter((f) => f !== CREDENTIALS_FINALIZER),
      CREDENTIALS_FINALIZER,
    ],
  };
  if (fresh.metadata.namespace === vcdCluster.metadata.namespace) {
    // The garbage collector ignores owner references across namespaces: only the own namespace's Secret gets one.
    const refs = setOwnerReference(VCDClusterType, vcdCluster, structuredClone(fresh)).metadata
      .ownerReferences;
    metadata.ownerReferences = refs;
    metadata.labels = { [MOVE_LABEL]: '' };
  }
  await client.patch(Secret, keyOf(fresh), 'merge', { metadata });
}

/**
 * Lets go of the Secret once `vcdCluster`'s VCD objects are gone: our owner reference goes (the
 * user's Secret outlives the cluster), and the finalizer too unless another VCDCluster holds it.
 */
export async function releaseCredentials(client: Client, vcdCluster: VCDCluster): Promise<void> {
  const key = credentialsSecretOf(vcdCluster);
  const secret = await getOrUndefined(() => client.get(Secret, key));
  if (!secret) return;
  const others = (await client.list(VCDClusterType)).items.filter(
    (c) => c.metadata.uid !== vcdCluster.metadata.uid && holdsSecret(c, key, CLUSTER_FINALIZER),
  );
  const refs = secret.metadata.ownerReferences ?? [];
  const keptRefs = refs.filter((r) => r.uid !== vcdCluster.metadata.uid);
  const finalizers = secret.metadata.finalizers ?? [];
  const keptFinalizers =
    others.length > 0 ? finalizers : finalizers.filter((f) => f !== CREDENTIALS_FINALIZER);
  if (keptRefs.length === refs.length && keptFinalizers.length === finalizers.length) return;
  await client.patch(Secret, key, 'merge', {
    metadata: {
      resourceVersion: secret.metadata.resourceVersion,
      ownerReferences: keptRefs,
      finalizers: keptFinalizers,
    },
  });
}
