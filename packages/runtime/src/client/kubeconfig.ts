import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

/** Where to find the cluster, as an operator's `--kubeconfig` and `--context` flags say. */
export interface LoadKubeConfigOptions {
  /** A kubeconfig file; wins over everything else. */
  kubeconfig?: string;
  /** A context of the kubeconfig to use instead of its current context. */
  context?: string;
}

/**
 * Loads the kubeconfig the way kubectl and controller-runtime look for it: the explicit file, else
 * the files in `KUBECONFIG` (merged), else the in-cluster service account when
 * `KUBERNETES_SERVICE_HOST` is set, else `~/.kube/config`.
 *
 * @throws Error when none is found (rather than client-node's silent fallback to
 *   `http://localhost:8080`), or when `context` names no context of the file.
 */
export function loadKubeConfig(options: LoadKubeConfigOptions = {}): KubeConfig {
  const kubeConfig = new KubeConfig();
  const env = process.env;
  if (options.kubeconfig) {
    kubeConfig.loadFromFile(options.kubeconfig);
  } else if (env.KUBECONFIG) {
    kubeConfig.loadFromDefault();
  } else if (env.KUBERNETES_SERVICE_HOST) {
    kubeConfig.loadFromCluster();
  } else {
    const file = join(homedir(), '.kube', 'config');
    if (!existsSync(file)) {
      throw new Error(
        'no kubeconfig: pass --kubeconfig, set KUBECONFIG, run in a cluster, or create ~/.kube/config',
      );
    }
    kubeConfig.loadFromFile(file);
  }
  if (options.context) {
    if (!kubeConfig.getContextObject(options.context)) {
      const known = kubeConfig.getContexts().map((c) => c.name);
      throw new Error(`kubeconfig: no context "${options.context}" (known: ${known.join(', ') || 'none'})`);
    }
    kubeConfig.setCurrentContext(options.context);
  }
  if (!kubeConfig.getCurrentCluster()) {
    throw new Error(`kubeconfig: context "${kubeConfig.getCurrentContext()}" names no known cluster`);
  }
  return kubeConfig;
}
