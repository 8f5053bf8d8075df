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

/** Kubernetes version of kube-apiserver and kube-controller-manager. */
export const kubernetesVersion = (): string => pinnedVersion('kubernetes', 'k8s.io/kubernetes');
/** etcd server version. */
export const etcdVersion = (): string => pinnedVersion('etcd', 'go.etcd.io/etcd/server/v3');

/**
 * The cache key of a build: both versions plus a hash of the wrapper modules' files, so editing a
 * go.mod or main.go never reuses binaries built from the old one.
 */
export function assetsKey(): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else hash.update(relative(goModulesDir, path)).update(readFileSync(path));
    }
  };
  walk(goModulesDir);
  return `k8s-${kubernetesVersion()}-etcd-${etcdVersion()}-${hash.digest('hex').slice(0, 12)}`;
}
