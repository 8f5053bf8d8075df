/**
 * The credentials of a cluster and user put on a request, as client-go's transport does: CA
 * bundle (data wins over file), server name, skip-verify, client certificate and key, bearer
 * token (a token file wins over a token, re-read as it rotates), basic auth and impersonation.
 * What the runtime does not implement itself (exec plugins, auth providers, proxies) is
 * {@link needsClientNode}'s to say; client-node-auth.ts serves it.
 */
import type http from 'node:http';
import type https from 'node:https';
import { readCredentialFile, readTokenFile } from './credential-file.js';
import type { Cluster, User } from './kubeconfig-types.js';

/** True when `user` or `cluster` needs client-node: an exec plugin, an auth provider, a proxy. */
export function needsClientNode(cluster: Cluster | null, user: User | null): boolean {
  return Boolean(user?.exec || user?.authProvider || cluster?.proxyUrl);
}

/** Applies what {@link needsClientNode} does not flag; throws a one-line error on an unreadable file. */
export function applyCredentials(
  cluster: Cluster | null,
  user: User | null,
  options: https.RequestOptions,
): void {
  if (cluster) applyClusterTrust(cluster, options);
  if (!user) return;
  const cert = material(user.certData, user.certFile, `client-certificate of user "${user.name}"`);
  if (cert) options.cert = cert;
  const key = material(user.keyData, user.keyFile, `client-key of user "${user.name}"`);
  if (key) options.key = key;
  const headers = headersOf(options);
  const token = bearerToken(user);
  if (token) headers.Authorization = `Bearer ${token}`;
  else if (user.username) options.auth = `${user.username}:${user.password ?? ''}`;
  applyImpersonation(user, options);
}

/** The server's trust: CA bundle, server name, skip-verify. */
function applyClusterTrust(cluster: Cluster, options: https.RequestOptions): void {
  if (cluster.skipTLSVerify) options.rejectUnauthorized = false;
  if (cluster.tlsServerName) options.servername = cluster.tlsServerName;
  const ca = material(cluster.caData, cluster.caFile, `certificate-authority of cluster "${cluster.name}"`);
  if (ca) options.ca = ca;
}

/** The `Impersonate-*` headers of `as`, `as-uid`, `as-groups` and `as-user-extra`. */
export function applyImpersonation(user: User, options: https.RequestOptions): void {
  if (!user.impersonateUser) return;
  const headers = headersOf(options);
  headers['Impersonate-User'] = user.impersonateUser;
  if (user.impersonateUid) headers['Impersonate-Uid'] = user.impersonateUid;
  if (user.impersonateGroups?.length) headers['Impersonate-Group'] = [...user.impersonateGroups];
  for (const [key, values] of Object.entries(user.impersonateExtra ?? {})) {
    // client-go escapes the key: a header name cannot hold every character a key may.
    headers[`Impersonate-Extra-${encodeURIComponent(key)}`] = [...values];
  }
}

/**
 * Reads every file the user and cluster name, so that a wrong path fails at start with one line
 * rather than on the first request. Also checks what client-go refuses: certificate (or key)
 * given both inline and as a file.
 */
export function checkCredentials(cluster: Cluster | null, user: User | null): void {
  if (user?.certData && user.certFile) {
    throw new Error(`user "${user.name}" has both client-certificate-data and client-certificate`);
  }
  if (user?.keyData && user.keyFile) {
    throw new Error(`user "${user.name}" has both client-key-data and client-key`);
  }
  if (needsClientNode(cluster, user)) return;
  applyCredentials(cluster, user, {});
}

/** The request's header object, created if absent (a raw header list is the caller's to avoid). */
function headersOf(options: https.RequestOptions): http.OutgoingHttpHeaders {
  if (Array.isArray(options.headers))
    throw new Error('kubeconfig: cannot add credentials to a raw header list');
  options.headers ??= {};
  return options.headers as http.OutgoingHttpHeaders;
}

function bearerToken(user: User): string | undefined {
  if (!user.tokenFile) return user.token;
  try {
    return readTokenFile(user.tokenFile, `tokenFile of user "${user.name}"`);
  } catch (err) {
    // client-go: the file's last good token, else the static token, else the error.
    if (user.token) return user.token;
    throw err;
  }
}

/** Inline material decoded once: requests apply it again and again. */
const decoded = new Map<string, Buffer>();

function material(data: string | undefined, file: string | undefined, what: string): Buffer | undefined {
  if (data) {
    const known = decoded.get(data);
    if (known) return known;
    const buffer = Buffer.from(data, 'base64');
    decoded.set(data, buffer);
    return buffer;
  }
  if (file) return readCredentialFile(file, what);
  return undefined;
}
