import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding the Go wrapper modules that build the control-plane binaries. */
export const goModulesDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'go');

/** The version a wrapper module pins for `modulePath`, read from its go.mod. */
export function pinnedVersion(moduleDir: string, modulePath: string): string {
  const goMod = readFileSync(join(goModulesDir, moduleDir, 'go.mod'), 'utf8');
  const match = goMod.match(
    new RegExp(`^\\s*(?:require\\s+)?${modulePath.replace(/[./]/g, '\\$&')}\\s+(v\\S+)`, 'm'),
  );
  if (!match?.[1]) throw new Error(`${moduleDir}/go.mod does not pin ${modulePath}`);
  return match[1];
}

/** Kubernetes version of kube-apiserver, kube-controller-manager and kube-scheduler. */
export const kubernetesVersion = (): string => pinnedVersion('kubernetes', 'k8s.io/kubernetes');
/** etcd server version. */
export const etcdVersion = (): string => pinnedVersion('etcd', 'go.etcd.io/etcd/server/v3');
/** kwok version. */
export const kwokVersion = (): string => pinnedVersion('kwok', 'sigs.k8s.io/kwok');
/** Cluster API version (core manager and kubeadm bootstrap provider). */
export const clusterApiVersion = (): string => pinnedVersion('cluster-api', 'sigs.k8s.io/cluster-api');

/**
 * The cache key of one component's build: its name and version plus a hash of its wrapper
 * module's files and of `recipe` (the build flags), so editing a go.mod, a main.go or the flags
 * never reuses binaries built from the old ones.
 */
export function componentKey(name: string, moduleDir: string, version: string, recipe: string): string {
  const hash = createHash('sha256').update(recipe);
  const root = join(goModulesDir, moduleDir);
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else hash.update(relative(root, path)).update(readFileSync(path));
    }
  };
  walk(root);
  return `${name}-${version}-${hash.digest('hex').slice(0, 12)}`;
}
