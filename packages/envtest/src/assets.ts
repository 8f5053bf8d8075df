import { accessSync, constants, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AssetsUnavailableError } from './assets-error.js';
import { type ComponentName, type ComponentSpec, components, componentVersion } from './components.js';
import { acquireFileLock } from './file-lock.js';
import { buildComponent } from './go-build.js';
import { componentKey } from './versions.js';

export { AssetsUnavailableError };

/** kwok's binary and the files of its module it runs with. */
export interface KwokAssets {
  binary: string;
  /** The module's `kustomize/stage` folders `node/` and `pod/`. */
  stagesDir: string;
  /** The module's `kustomize/rbac` (the `kwok-controller` ClusterRole). */
  rbacDir: string;
  /** The module's `kustomize/crd/bases` (PortForward, ClusterPortForward, ...). */
  crdDir: string;
}

/** Cluster API's managers and the files of its module they run with. */
export interface ClusterApiAssets {
  manager: string;
  kubeadmBootstrapManager: string;
  /** `core/` and `kubeadm-bootstrap/`: the CRD bases of the module. */
  crdDir: string;
  /** `core/` and `kubeadm-bootstrap/`: each manager's `config/rbac`. */
  rbacDir: string;
}

/** KubeadmControlPlane's manager (KCP) and the files of its module it runs with. */
export interface KubeadmControlPlaneAssets {
  manager: string;
  /** The CRD bases of `controlplane/kubeadm` (KubeadmControlPlane, KubeadmControlPlaneTemplate). */
  crdDir: string;
  /** Its `config/rbac`. */
  rbacDir: string;
}

/** clusterctl and the KubeadmControlPlane CRDs of its Cluster API version. */
export interface ClusterctlAssets {
  binary: string;
  /** The CRD bases of `controlplane/kubeadm` (KubeadmControlPlane, KubeadmControlPlaneTemplate). */
  kubeadmControlPlaneCrdDir: string;
  /** clusterctl's CRD bases: its provider inventory (`providers.clusterctl.cluster.x-k8s.io`). */
  clusterctlCrdDir: string;
}

/** Paths of the envtest binaries (and the upstream files some of them need). */
export interface Assets {
  /** The folder holding kube-apiserver. */
  dir: string;
  kubeApiServer: string;
  etcd: string;
  /** Absent when `KUBEBUILDER_ASSETS` names a folder without it. */
  kubeControllerManager?: string;
  /** Absent when `KUBEBUILDER_ASSETS` names a folder without it. */
  kubeScheduler?: string;
  /** Present when asked for with `with: ['kwok']`. */
  kwok?: KwokAssets;
  /** Present when asked for with `with: ['cluster-api']`. */
  clusterApi?: ClusterApiAssets;
  /** Present when asked for with `with: ['kubeadm-control-plane']`. */
  kubeadmControlPlane?: KubeadmControlPlaneAssets;
  /** Present when asked for with `with: ['clusterctl']`. */
  clusterctl?: ClusterctlAssets;
}

/** Components beyond the control plane itself (kube-apiserver, etcd, controller manager, scheduler). */
export type ExtraComponent = Extract<
  ComponentName,
  'kwok' | 'cluster-api' | 'kubeadm-control-plane' | 'clusterctl'
>;

/** Options of {@link resolveAssets}. */
export interface ResolveAssetsOptions {
  /** Receives one line per build step; defaults to stderr. */
  onProgress?: (line: string) => void;
  /** Build into this cache root instead of `$CAPSTAN_ENVTEST_CACHE` or `~/.cache/capstan/envtest`. */
  cacheRoot?: string;
  /** Extra components to resolve too. */
  with?: ExtraComponent[];
}

/** Whether `path` is a file this process may execute. */
export const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The cache root: `$CAPSTAN_ENVTEST_CACHE`, else `$XDG_CACHE_HOME/capstan/envtest`, else `~/.cache/...`. */
export function defaultCacheRoot(): string {
  if (process.env.CAPSTAN_ENVTEST_CACHE) return process.env.CAPSTAN_ENVTEST_CACHE;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'capstan', 'envtest');
}

/**
 * Finds the binaries, each in this order: its own `CAPSTAN_*_BINARY` variable; for
 * kube-apiserver, etcd, kube-controller-manager and kube-scheduler, `KUBEBUILDER_ASSETS` when set
 * (as controller-runtime's envtest does; the last two may be absent there); else the on-disk cache
 * keyed by component version; else a build with the machine's Go from the Go module proxy (once
 * per machine and component: a file lock keeps parallel test workers from building twice;
 * components build in parallel).
 */
export async function resolveAssets(options: ResolveAssetsOptions = {}): Promise<Assets> {
  const progress = options.onProgress ?? ((line: string) => process.stderr.write(`[envtest] ${line}\n`));
  const root = options.cacheRoot ?? defaultCacheRoot();
  const names: ComponentName[] = ['kubernetes', 'etcd', ...(options.with ?? [])];
  const found = await Promise.all(
    names.map((name) => resolveComponent(components[name], root, (line) => progress(`${name}: ${line}`))),
  );
  const paths = Object.assign({}, ...found.map((f) => f.paths)) as Record<string, string | undefined>;
  const dataDir = (name: ComponentName) => found[names.indexOf(name)]?.dataDir as string;
  const assets: Assets = {
    dir: join(paths['kube-apiserver'] as string, '..'),
    kubeApiServer: paths['kube-apiserver'] as string,
    etcd: paths.etcd as string,
  };
  if (paths['kube-controller-manager']) assets.kubeControllerManager = paths['kube-controller-manager'];
  if (paths['kube-scheduler']) assets.kubeScheduler = paths['kube-scheduler'];
  if (names.includes('kwok'))
    assets.kwok = {
      binary: paths.kwok as string,
      stagesDir: join(dataDir('kwok'), 'stages'),
      rbacDir: join(dataDir('kwok'), 'rbac'),
      crdDir: join(dataDir('kwok'), 'crds'),
    };
  if (names.includes('cluster-api'))
    assets.clusterApi = {
      manager: paths['cluster-api-manager'] as string,
      kubeadmBootstrapManager: paths['kubeadm-bootstrap-manager'] as string,
      crdDir: join(dataDir('cluster-api'), 'crds'),
      rbacDir: join(dataDir('cluster-api'), 'rbac'),
    };
  if (names.includes('kubeadm-control-plane'))
    assets.kubeadmControlPlane = {
      manager: paths['kubeadm-control-plane-manager'] as string,
      crdDir: join(dataDir('kubeadm-control-plane'), 'crds'),
      rbacDir: join(dataDir('kubeadm-control-plane'), 'rbac'),
    };
  if (names.includes('clusterctl'))
    assets.clusterctl = {
      binary: paths.clusterctl as string,
      kubeadmControlPlaneCrdDir: join(dataDir('clusterctl'), 'crds', 'kubeadm-control-plane'),
      clusterctlCrdDir: join(dataDir('clusterctl'), 'crds', 'clusterctl'),
    };
  return assets;
}

/** One component's binaries (absent: allowed missing) and its cache folder, building what lacks. */
async function resolveComponent(
  spec: ComponentSpec,
  root: string,
  progress: (line: string) => void,
): Promise<{ paths: Record<string, string | undefined>; dataDir: string }> {
  const version = componentVersion(spec);
  const dir = join(root, componentKey(spec.name, spec.moduleDir, version, JSON.stringify(spec)));
  const paths: Record<string, string | undefined> = {};
  const toBuild: string[] = [];
  const kubebuilderAssets = process.env.KUBEBUILDER_ASSETS;
  for (const binary of spec.binaries) {
    const fromVar = process.env[binary.envVar];
    if (fromVar) {
      if (!isExecutable(fromVar))
        throw new AssetsUnavailableError(`${binary.envVar}=${fromVar} is not an executable file`);
      paths[binary.name] = fromVar;
    } else if (kubebuilderAssets && binary.inKubebuilderAssets) {
      const path = join(kubebuilderAssets, binary.name);
      paths[binary.name] = isExecutable(path) ? path : undefined;
    } else {
      paths[binary.name] = join(dir, binary.name);
      toBuild.push(binary.name);
    }
  }
  if (kubebuilderAssets) {
    const required = ['kube-apiserver', 'etcd'].filter((name) => name in paths && !paths[name]);
    if (required.length)
      throw new AssetsUnavailableError(
        `KUBEBUILDER_ASSETS=${kubebuilderAssets} lacks an executable ${required.join(' and ')}; ` +
          'point it at a folder holding kube-apiserver and etcd, or unset it to build them with Go.',
      );
  }
  const complete = () =>
    toBuild.every((name) => isExecutable(join(dir, name))) &&
    (spec.data ?? []).every(([, to]) => existsSync(join(dir, to)));
  if (!complete()) {
    const release = await acquireFileLock(`${dir}.lock`, (pid) =>
      progress(`waiting for process ${pid}, which is building into ${dir}`),
    );
    try {
      if (!complete()) await buildComponent(spec, version, dir, toBuild, progress);
    } finally {
      release();
    }
  }
  return { paths, dataDir: dir };
}

/** A binary the options need, or an error saying how to provide it. */
export function requireAsset<T>(value: T | undefined, what: string, envVar: string): T {
  if (value === undefined)
    throw new Error(
      `${what} was asked for, but the assets hold none: set ${envVar}, or unset KUBEBUILDER_ASSETS to build it`,
    );
  return value;
}
