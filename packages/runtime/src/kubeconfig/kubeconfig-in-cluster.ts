/**
 * The in-cluster configuration client-go's `rest.InClusterConfig` builds: the API server from
 * `KUBERNETES_SERVICE_HOST` and `KUBERNETES_SERVICE_PORT` (always https, IPv6 in brackets), the
 * pod's service account token (a token file, so it is re-read as the kubelet rotates it), its CA
 * bundle (if mounted: else the system's roots, as client-go), and its namespace as the context's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import type { KubeConfigDocument } from './kubeconfig-parse.js';

/** Where the kubelet mounts the service account's token, CA bundle and namespace. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The in-cluster entries. `pathPrefix` is put before {@link SERVICE_ACCOUNT_DIR} (tests).
 *
 * @throws Error when `KUBERNETES_SERVICE_HOST` or `KUBERNETES_SERVICE_PORT` is not set.
 */
export function inClusterConfig(
  env: NodeJS.ProcessEnv = process.env,
  pathPrefix = '',
): KubeConfigDocument & { currentContext: string } {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new Error('not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set');
  }
  const dir = `${pathPrefix}${SERVICE_ACCOUNT_DIR}`;
  const namespaceFile = `${dir}/namespace`;
  const caFile = `${dir}/ca.crt`;
  const namespace = existsSync(namespaceFile) ? readFileSync(namespaceFile, 'utf8').trim() : '';
  return {
    clusters: [
      {
        name: 'inCluster',
        server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
        ...(existsSync(caFile) ? { caFile } : {}),
        skipTLSVerify: false,
      },
    ],
    users: [{ name: 'inClusterUser', tokenFile: `${dir}/token` }],
    contexts: [
      {
        name: 'inClusterContext',
        cluster: 'inCluster',
        user: 'inClusterUser',
        ...(namespace ? { namespace } : {}),
      },
    ],
    currentContext: 'inClusterContext',
  };
}
