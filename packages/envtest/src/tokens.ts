/**
 * Service-account tokens bound to a Pod, minted through the TokenRequest API as the kubelet does
 * for a projected token volume. A token bound to a pod that has `spec.nodeName` carries the node
 * in its user info (`authentication.kubernetes.io/node-name`), so tests can run an operator with
 * the very identity a DaemonSet pod on that node would have.
 */
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';

/** Options of {@link podBoundKubeConfig}. */
export interface PodBoundTokenOptions {
  /** Token lifetime; default one hour (the API server's minimum is ten minutes). */
  expirationSeconds?: number;
}

/**
 * A KubeConfig that authenticates as service account `namespace/serviceAccount` with a token
 * bound to Pod `namespace/pod`: the token stops working when the pod is deleted, and, when the
 * pod is bound to a node, its user info names that node. `admin` mints the token (it needs
 * `create serviceaccounts/token` and `get pods`) and gives the server and CA.
 *
 * The service account and the pod must exist, and the pod must run as that service account.
 */
export async function podBoundKubeConfig(
  admin: KubeConfig,
  namespace: string,
  serviceAccount: string,
  pod: string,
  options: PodBoundTokenOptions = {},
): Promise<KubeConfig> {
  const core = admin.makeApiClient(CoreV1Api);
  const bound = await core.readNamespacedPod({ namespace, name: pod });
  const uid = bound.metadata?.uid;
  if (!uid) throw new Error(`pod ${namespace}/${pod} has no uid`);
  const request = await core.createNamespacedServiceAccountToken({
    namespace,
    name: serviceAccount,
    body: {
      spec: {
        audiences: [],
        expirationSeconds: options.expirationSeconds ?? 3600,
        boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod, uid },
      },
    },
  });
  const token = request.status?.token;
  if (!token) throw new Error(`the TokenRequest for ${namespace}/${serviceAccount} returned no token`);
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('the admin KubeConfig has no current cluster');
  const user = `${namespace}-${serviceAccount}-${pod}`;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name: user, token }],
    contexts: [{ name: user, cluster: cluster.name, user }],
    currentContext: user,
  });
  return kc;
}
