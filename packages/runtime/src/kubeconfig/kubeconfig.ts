import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig } from './kube-config.js';
import { checkCredentials } from './kubeconfig-credentials.js';

/** Where to find the cluster, as an operator's `--kubeconfig` and `--context` flags say. */
export interface LoadKubeConfigOptions {
  /** A kubeconfig file; wins over everything else. */
  kubeconfig?: string;
  /** A context of the kubeconfig to use instead of its current context. */
  context?: string;
}

/**
 * Loads the kubeconfig the way kubectl and controller-runtime look for it: the explicit file, else
 * the files in `KUBECONFIG` (merged as kubectl merges them; files that do not exist are skipped),
 * else the in-cluster service account when `KUBERNETES_SERVICE_HOST` is set, else
 * `~/.kube/config`. The current context must name a known cluster (and user, if it names one),
 * and the files its cluster and user refer to must be readable.
 *
 * Loads no part of client-node, unless the current user has an exec plugin or an auth provider or
 * the cluster a proxy; then client-node is imported on the first request.
 *
 * @throws Error, one line starting `kubeconfig:`, when none is found (rather than client-node's
 *   silent fallback to `http://localhost:8080`), a file cannot be read or parsed, `context` names
 *   no context of the file, or the current context cannot be used.
 */
export function loadKubeConfig(options: LoadKubeConfigOptions = {}): KubeConfig {
  const kubeConfig = load(options);
  if (options.context) {
    if (!kubeConfig.getContextObject(options.context)) {
      throw new Error(`kubeconfig: no context "${options.context}" (known: ${known(kubeConfig) || 'none'})`);
    }
    kubeConfig.setCurrentContext(options.context);
  }
  checkUsable(kubeConfig);
  return kubeConfig;
}

function load(options: LoadKubeConfigOptions): KubeConfig {
  const env = process.env;
  if (options.kubeconfig) return loadFiles([options.kubeconfig], '--kubeconfig');
  if (env.KUBECONFIG) {
    const files = env.KUBECONFIG.split(delimiter).filter(Boolean);
    const present = files.filter((f) => existsSync(f));
    if (present.length === 0) {
      throw new Error(`kubeconfig: ${files.join(', ')} (from KUBECONFIG) does not exist`);
    }
    return loadFiles(present, 'KUBECONFIG');
  }
  if (env.KUBERNETES_SERVICE_HOST) {
    try {
      return KubeConfig.inCluster();
    } catch (err) {
      throw new Error(`kubeconfig: in-cluster: ${firstLine(err)}`);
    }
  }
  const file = join(homedir(), '.kube', 'config');
  if (!existsSync(file)) {
    throw new Error(
      'no kubeconfig: pass --kubeconfig, set KUBECONFIG, run in a cluster, or create ~/.kube/config',
    );
  }
  return loadFiles([file], '~/.kube/config');
}

/** Loads and merges `files`, failing with one line that names the file and says what is wrong. */
function loadFiles(files: string[], from: string): KubeConfig {
  const [single] = files;
  if (files.length === 1 && single !== undefined && !existsSync(single)) {
    throw new Error(`kubeconfig: ${single} (from ${from}) does not exist`);
  }
  try {
    return KubeConfig.fromFiles(files);
  } catch (err) {
    throw new Error(`kubeconfig: ${firstLine(err)} (from ${from})`);
  }
}

/** What client-go's ConfirmUsable checks of the current context, and the files it needs. */
function checkUsable(kubeConfig: KubeConfig): void {
  const name = kubeConfig.getCurrentContext();
  if (!name) throw new Error('kubeconfig: no current-context is set (pass --context)');
  const context = kubeConfig.getContextObject(name);
  if (!context) {
    throw new Error(
      `kubeconfig: current-context "${name}" names no context (known: ${known(kubeConfig) || 'none'})`,
    );
  }
  const cluster = kubeConfig.getCluster(context.cluster);
  if (!cluster) throw new Error(`kubeconfig: context "${name}" names no known cluster`);
  const user = context.user ? kubeConfig.getUser(context.user) : null;
  if (context.user && !user)
    throw new Error(`kubeconfig: context "${name}" names no known user "${context.user}"`);
  try {
    checkCredentials(cluster, user);
  } catch (err) {
    throw new Error(`kubeconfig: context "${name}": ${firstLine(err)}`);
  }
}

function known(kubeConfig: KubeConfig): string {
  return kubeConfig
    .getContexts()
    .map((c) => c.name)
    .join(', ');
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] as string;
}
