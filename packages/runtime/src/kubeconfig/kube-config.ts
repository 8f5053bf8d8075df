/**
 * The runtime's own kubeconfig: clusters, users and contexts loaded and merged as kubectl does,
 * in-cluster config, and the credentials of the current context put on requests. It loads no
 * part of client-node; only a user with an exec plugin or an auth provider, or a cluster behind a
 * proxy, imports client-node (lazily, on the first request; see client-node-auth.ts).
 *
 * Its instance members are a subset of client-node's `KubeConfig` with the same names and types,
 * so a client-node KubeConfig can stand wherever this type is asked for.
 */
import { readFileSync } from 'node:fs';
import type https from 'node:https';
import { dirname, resolve } from 'node:path';
import { applyThroughClientNode, forgetClientNode } from './client-node-auth.js';
import { applyCredentials, needsClientNode } from './kubeconfig-credentials.js';
import { inClusterConfig } from './kubeconfig-in-cluster.js';
import { mergeKubeConfigs } from './kubeconfig-merge.js';
import { type KubeConfigDocument, parseKubeConfig } from './kubeconfig-parse.js';
import type { Cluster, ClusterAccess, Context, User } from './kubeconfig-types.js';

/**
 * A kubeconfig: where the API servers are, who the users are, which context is current.
 *
 * @example
 * const kc = KubeConfig.fromFiles(['/etc/kube/admin.conf']);
 * const client = new Client(new HttpTransport(kc));
 */
export class KubeConfig implements ClusterAccess {
  /** Every known cluster. */
  clusters: Cluster[] = [];
  /** Every known user. */
  users: User[] = [];
  /** Every known context. */
  contexts: Context[] = [];
  /** Name of the current context; empty when none is set. */
  currentContext = '';

  /**
   * The files merged as a KUBECONFIG list is (see {@link KubeConfig.loadFromFile} for one file):
   * for each name the first file that defines it wins, and so does the first `current-context`.
   *
   * @throws Error naming the file, one line, when one cannot be read or parsed.
   */
  static fromFiles(files: readonly string[]): KubeConfig {
    const kc = new KubeConfig();
    load(kc, mergeKubeConfigs(files.map(readDocument)));
    return kc;
  }

  /** Kubeconfig YAML or JSON; relative file references are resolved against `baseDir` if given. */
  static fromString(text: string, baseDir?: string): KubeConfig {
    const kc = new KubeConfig();
    load(kc, parseKubeConfig(text, baseDir));
    return kc;
  }

  /** The pod's service account, as client-go's `rest.InClusterConfig`. */
  static inCluster(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromCluster();
    return kc;
  }

  /** Every known context. */
  getContexts(): Context[] {
    return this.contexts;
  }

  /** Every known cluster. */
  getClusters(): Cluster[] {
    return this.clusters;
  }

  /** Every known user. */
  getUsers(): User[] {
    return this.users;
  }

  /** Name of the current context; empty when none is set. */
  getCurrentContext(): string {
    return this.currentContext;
  }

  /** Makes `context` current; {@link loadKubeConfig} checks that it exists. */
  setCurrentContext(context: string): void {
    this.currentContext = context;
  }

  /** The context named `name`, or null. */
  getContextObject(name: string): Context | null {
    return this.contexts.find((c) => c.name === name) ?? null;
  }

  /** The cluster named `name`, or null. */
  getCluster(name: string): Cluster | null {
    return this.clusters.find((c) => c.name === name) ?? null;
  }

  /** The user named `name`, or null. */
  getUser(name: string): User | null {
    return this.users.find((u) => u.name === name) ?? null;
  }

  /** The current context's cluster, or null. */
  getCurrentCluster(): Cluster | null {
    const context = this.getContextObject(this.currentContext);
    return context ? this.getCluster(context.cluster) : null;
  }

  /** The current context's user, or null (also when the context names none). */
  getCurrentUser(): User | null {
    const context = this.getContextObject(this.currentContext);
    return context?.user ? this.getUser(context.user) : null;
  }

  /** Replaces the entries with one file's; its relative file references are made absolute. */
  loadFromFile(file: string): void {
    load(this, readDocument(file));
  }

  /** Replaces the entries with those of kubeconfig YAML or JSON. */
  loadFromString(text: string): void {
    load(this, parseKubeConfig(text));
  }

  /** Replaces the entries with ready-made ones (client-node's `loadFromOptions`). */
  loadFromOptions(options: {
    clusters: Cluster[];
    users: User[];
    contexts: Context[];
    currentContext?: string;
  }): void {
    load(this, { ...options, currentContext: options.currentContext ?? '' });
  }

  /** Replaces the entries with the in-cluster config; `pathPrefix` goes before the mount path (tests). */
  loadFromCluster(pathPrefix = ''): void {
    load(this, inClusterConfig(process.env, pathPrefix));
  }

  /** The entries as a kubeconfig document (JSON text, which is YAML too). */
  exportConfig(): string {
    return JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: this.clusters.map(exportCluster),
      users: this.users.map(exportUser),
      contexts: this.contexts.map(({ name, ...context }) => ({ name, context })),
      preferences: {},
      'current-context': this.currentContext,
    });
  }

  /**
   * Puts the current context's TLS material and credentials on `options` (see
   * {@link ClusterAccess.applyToHTTPSOptions}). Files are re-read when they change.
   *
   * @throws Error when a file the context needs cannot be read.
   */
  async applyToHTTPSOptions(options: https.RequestOptions): Promise<void> {
    const cluster = this.getCurrentCluster();
    const user = this.getCurrentUser();
    if (needsClientNode(cluster, user)) await applyThroughClientNode(this, user, options);
    else applyCredentials(cluster, user, options);
  }
}

/** Replaces the entries of `kc` (a module function: a private member would make the class nominal). */
function load(kc: KubeConfig, doc: KubeConfigDocument): void {
  kc.clusters = doc.clusters;
  kc.users = doc.users;
  kc.contexts = doc.contexts;
  kc.currentContext = doc.currentContext ?? '';
  forgetClientNode(kc);
}

function readDocument(file: string): KubeConfigDocument {
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    return parseKubeConfig(text, dirname(path));
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
}

function exportCluster(c: Cluster): unknown {
  return {
    name: c.name,
    cluster: {
      server: c.server,
      'certificate-authority-data': c.caData,
      'certificate-authority': c.caFile,
      'insecure-skip-tls-verify': c.skipTLSVerify || undefined,
      'tls-server-name': c.tlsServerName,
      'proxy-url': c.proxyUrl,
    },
  };
}

function exportUser(u: User): unknown {
  return {
    name: u.name,
    user: {
      'client-certificate-data': u.certData,
      'client-certificate': u.certFile,
      'client-key-data': u.keyData,
      'client-key': u.keyFile,
      token: u.token,
      tokenFile: u.tokenFile,
      username: u.username,
      password: u.password,
      as: u.impersonateUser,
      'as-uid': u.impersonateUid,
      'as-groups': u.impersonateGroups,
      'as-user-extra': u.impersonateExtra,
      exec: u.exec,
      'auth-provider': u.authProvider,
    },
  };
}
