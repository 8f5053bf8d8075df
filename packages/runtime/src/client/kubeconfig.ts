import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
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
    loadFile(kubeConfig, options.kubeconfig, '--kubeconfig');
  } else if (env.KUBECONFIG) {
    const files = env.KUBECONFIG.split(delimiter).filter(Boolean);
    const missing = files.filter((f) => !existsSync(f));
    if (missing.length === files.length) {
      throw new Error(`kubeconfig: ${missing.join(', ')} (from KUBECONFIG) does not exist`);
    }
    try {
      kubeConfig.loadFromDefault();
    } catch (err) {
      throw new Error(`kubeconfig: cannot load KUBECONFIG=${env.KUBECONFIG}: ${firstLine(err)}`);
    }
  } else if (env.KUBERNETES_SERVICE_HOST) {
    kubeConfig.loadFromCluster();
  } else {
    const file = join(homedir(), '.kube', 'config');
    if (!existsSync(file)) {
      throw new Error(
        'no kubeconfig: pass --kubeconfig, set KUBECONFIG, run in a cluster, or create ~/.kube/config',
      );
    }
    loadFile(kubeConfig, file, '~/.kube/config');
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

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] as string;
}

/** Loads one file, failing with one line that names it and says what is wrong. */
function loadFile(kubeConfig: KubeConfig, file: string, from: string): void {
  if (!existsSync(file)) throw new Error(`kubeconfig: ${file} (from ${from}) does not exist`);
  try {
    kubeConfig.loadFromFile(file);
  } catch (err) {
    throw new Error(`kubeconfig: cannot load ${file} (from ${from}): ${firstLine(err)}`);
  }
}
