/**
 * The auth flavours the runtime leaves to client-node: exec credential plugins, auth providers
 * (oidc, azure, gcp) and proxies (HTTP(S), SOCKS). client-node is imported here, on first use,
 * and never at module load: importing it costs ~0.4 s and ~80 MB in a fresh process, which a
 * kubeconfig with certificates or tokens should not pay.
 *
 * The client-node KubeConfig is built once per runtime KubeConfig, from the same merged entries,
 * and kept: its exec authenticator caches credentials until they expire.
 */
import type https from 'node:https';
import type { KubeConfig as ClientNodeKubeConfig } from '@kubernetes/client-node';
import { applyImpersonation } from './kubeconfig-credentials.js';
import type { Cluster, Context, User } from './kubeconfig-types.js';

/** The entries a runtime KubeConfig holds. */
export interface KubeConfigEntries {
  readonly clusters: readonly Cluster[];
  readonly users: readonly User[];
  readonly contexts: readonly Context[];
  readonly currentContext: string;
}

const delegates = new WeakMap<object, Promise<ClientNodeKubeConfig>>();

/** Applies the current context's credentials through client-node's KubeConfig, loading it if needed. */
export async function applyThroughClientNode(
  owner: KubeConfigEntries,
  user: User | null,
  options: https.RequestOptions,
): Promise<void> {
  let delegate = delegates.get(owner);
  if (!delegate) {
    delegate = clientNodeKubeConfig(owner);
    delegates.set(owner, delegate);
    // A failed import is not cached: the next request tries again.
    delegate.catch(() => delegates.delete(owner));
  }
  const kc = await delegate;
  kc.setCurrentContext(owner.currentContext);
  await kc.applyToHTTPSOptions(options);
  // client-node knows only `as`; the rest of kubectl's impersonation is ours to add.
  if (user) applyImpersonation(user, options);
}

/** Forgets the client-node KubeConfig of `owner` (its entries were replaced). */
export function forgetClientNode(owner: KubeConfigEntries): void {
  delegates.delete(owner);
}

async function clientNodeKubeConfig(entries: KubeConfigEntries): Promise<ClientNodeKubeConfig> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    // client-node reads a CA file over inline data; client-go (and the runtime) the other way round.
    clusters: entries.clusters.map((c) => (c.caData ? { ...c, caFile: undefined } : c)),
    users: entries.users.map(clientNodeUser),
    contexts: entries.contexts.map((c) => ({ ...c })),
    currentContext: entries.currentContext,
  });
  return kc;
}

/** A token file becomes client-node's file token provider unless another provider is set. */
function clientNodeUser(user: User): User {
  if (!user.tokenFile || user.authProvider || user.exec) return { ...user };
  return { ...user, authProvider: { name: 'tokenFile', config: { tokenFile: user.tokenFile } } };
}
