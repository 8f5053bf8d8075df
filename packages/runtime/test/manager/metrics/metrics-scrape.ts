/** What the secure metrics tests share: a scrape over HTTPS and a real ServiceAccount token. */
import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import {
  type Client,
  ClusterRole,
  ClusterRoleBinding,
  type HttpTransport,
  ServiceAccount,
} from '../../../src/client/index.js';

export interface Scrape {
  status: number;
  body: string;
  /** The issuer's common name of the certificate served. */
  issuer: string;
}

/**
 * GETs `/metrics` on a new connection: verifying the server against `ca`, or (`ca` undefined)
 * skipping verification as a ServiceMonitor with `insecureSkipVerify` does.
 */
export function scrape(port: number, ca: string | undefined, token?: string): Promise<Scrape> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/metrics',
        ...(ca === undefined ? { rejectUnauthorized: false } : { ca }),
        agent: false,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        const issuer = String((res.socket as TLSSocket).getPeerCertificate().issuer?.CN ?? '');
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), issuer }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A ServiceAccount and a token for it, minted through the TokenRequest API. */
export async function serviceAccountToken(
  client: Client,
  transport: HttpTransport,
  namespace: string,
  name: string,
): Promise<string> {
  await client.create(ServiceAccount, { metadata: { name, namespace } });
  const answer = (await transport.createSubresource(ServiceAccount, { namespace, name }, 'token', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 3600 },
  })) as { status?: { token?: string } };
  const token = answer.status?.token;
  if (!token) throw new Error(`the TokenRequest for ${name} returned no token`);
  return token;
}

/** Grants a ServiceAccount `get` on `/metrics` through a ClusterRole and binding named `role`. */
export async function grantMetricsReader(
  client: Client,
  role: string,
  serviceAccount: { name: string; namespace: string },
): Promise<void> {
  await client.create(ClusterRole, {
    metadata: { name: role },
    rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
  });
  await client.create(ClusterRoleBinding, {
    metadata: { name: role },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', ...serviceAccount }],
  });
}

/** Removes what {@link grantMetricsReader} made, if it is there. */
export async function revokeMetricsReader(client: Client, role: string): Promise<void> {
  await client.delete(ClusterRoleBinding, { name: role }).catch(() => {});
  await client.delete(ClusterRole, { name: role }).catch(() => {});
}
