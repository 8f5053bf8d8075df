/**
 * The upstream components envtest builds from the Go module proxy: which wrapper module under
 * `go/` builds them, which binaries and packages, the version ldflags that stamp them, and the
 * data files (stages, CRDs, RBAC) copied out of the upstream module next to the binaries.
 */
import { pinnedVersion } from './versions.js';

/** A component of envtest, built as a unit (one wrapper module, one cache folder, one lock). */
export type ComponentName =
  | 'kubernetes'
  | 'etcd'
  | 'kwok'
  | 'cluster-api'
  | 'kubeadm-control-plane'
  | 'clusterctl';

/** One binary of a component. */
export interface BinarySpec {
  /** File name in the cache folder. */
  name: string;
  /** Go package (relative to the wrapper module, or a full import path). */
  pkg: string;
  /** Environment variable naming a prebuilt binary to use instead of building. */
  envVar: string;
  /** Also looked for in `KUBEBUILDER_ASSETS`, as controller-runtime's envtest does. */
  inKubebuilderAssets?: boolean;
}

/** Everything needed to build and find one component. */
export interface ComponentSpec {
  name: ComponentName;
  /** Wrapper module folder under `go/`. */
  moduleDir: string;
  /** The upstream module whose version names the build. */
  upstream: string;
  binaries: BinarySpec[];
  /** `-X` ldflags stamping the upstream version, given that version and its release time. */
  versionFlags?: (version: string, releasedAt: string) => string[];
  /**
   * Folders of YAML copied out of the upstream module's source into the cache folder:
   * `[from (relative to the module root), to (relative to the cache folder)]`.
   */
  data?: Array<[string, string]>;
}

/**
 * The `-X` flags of a Kubernetes-style version package (`gitVersion`, `gitMajor`, ...), as the
 * upstream release scripts set them. The Go module proxy serves no commit hash, so `gitCommit`
 * is set empty rather than left as the unexpanded `$Format:%H$` placeholder.
 */
export function kubeVersionFlags(pkgs: string[], version: string, releasedAt: string): string[] {
  const match = /^v(\d+)\.(\d+)\./.exec(version);
  if (!match) throw new Error(`not a semantic version: ${version}`);
  const values: Record<string, string> = {
    gitVersion: version,
    gitMajor: match[1] as string,
    gitMinor: match[2] as string,
    gitCommit: '',
    gitTreeState: 'clean',
    buildDate: releasedAt,
  };
  return pkgs.flatMap((pkg) => Object.entries(values).map(([key, value]) => `-X ${pkg}.${key}=${value}`));
}

/** The components, in the order `setup` lists them. */
export const components: Record<ComponentName, ComponentSpec> = {
  kubernetes: {
    name: 'kubernetes',
    moduleDir: 'kubernetes',
    upstream: 'k8s.io/kubernetes',
    binaries: [
      {
        name: 'kube-apiserver',
        pkg: './cmd/kube-apiserver',
        envVar: 'CAPSTAN_KUBE_APISERVER_BINARY',
        inKubebuilderAssets: true,
      },
      {
        name: 'kube-controller-manager',
        pkg: './cmd/kube-controller-manager',
        envVar: 'CAPSTAN_KUBE_CONTROLLER_MANAGER_BINARY',
        inKubebuilderAssets: true,
      },
      {
        name: 'kube-scheduler',
        pkg: './cmd/kube-scheduler',
        envVar: 'CAPSTAN_KUBE_SCHEDULER_BINARY',
        inKubebuilderAssets: true,
      },
    ],
    versionFlags: (version, releasedAt) =>
      kubeVersionFlags(
        ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'],
        version,
        releasedAt,
      ),
  },
  etcd: {
    name: 'etcd',
    moduleDir: 'etcd',
    upstream: 'go.etcd.io/etcd/server/v3',
    binaries: [{ name: 'etcd', pkg: '.', envVar: 'CAPSTAN_ETCD_BINARY', inKubebuilderAssets: true }],
  },
  kwok: {
    name: 'kwok',
    moduleDir: 'kwok',
    upstream: 'sigs.k8s.io/kwok',
    binaries: [{ name: 'kwok', pkg: 'sigs.k8s.io/kwok/cmd/kwok', envVar: 'CAPSTAN_KWOK_BINARY' }],
    data: [
      ['kustomize/stage/node', 'stages/node'],
      ['kustomize/stage/pod', 'stages/pod'],
      ['kustomize/rbac', 'rbac'],
      ['kustomize/crd/bases', 'crds'],
    ],
  },
  'cluster-api': {
    name: 'cluster-api',
    moduleDir: 'cluster-api',
    upstream: 'sigs.k8s.io/cluster-api',
    binaries: [
      {
        name: 'cluster-api-manager',
        pkg: 'sigs.k8s.io/cluster-api/core',
        envVar: 'CAPSTAN_CLUSTER_API_MANAGER_BINARY',
      },
      {
        name: 'kubeadm-bootstrap-manager',
        pkg: 'sigs.k8s.io/cluster-api/bootstrap/kubeadm',
        envVar: 'CAPSTAN_KUBEADM_BOOTSTRAP_MANAGER_BINARY',
      },
    ],
    versionFlags: (version, releasedAt) =>
      kubeVersionFlags(['sigs.k8s.io/cluster-api/version'], version, releasedAt),
    data: [
      ['core/config/crd/bases', 'crds/core'],
      ['bootstrap/kubeadm/config/crd/bases', 'crds/kubeadm-bootstrap'],
      ['core/config/rbac', 'rbac/core'],
      ['bootstrap/kubeadm/config/rbac', 'rbac/kubeadm-bootstrap'],
    ],
  },
  // Cluster API's KubeadmControlPlane manager (KCP), at the managers' version, with its CRDs and
  // RBAC; its own wrapper module, as KCP needs etcd's client (~30 s warm once core is built, 92 MB).
  'kubeadm-control-plane': {
    name: 'kubeadm-control-plane',
    moduleDir: 'kubeadm-control-plane',
    upstream: 'sigs.k8s.io/cluster-api',
    binaries: [
      {
        name: 'kubeadm-control-plane-manager',
        pkg: 'sigs.k8s.io/cluster-api/controlplane/kubeadm',
        envVar: 'CAPSTAN_KUBEADM_CONTROL_PLANE_MANAGER_BINARY',
      },
    ],
    versionFlags: (version, releasedAt) =>
      kubeVersionFlags(['sigs.k8s.io/cluster-api/version'], version, releasedAt),
    data: [
      ['controlplane/kubeadm/config/crd/bases', 'crds'],
      ['controlplane/kubeadm/config/rbac', 'rbac'],
    ],
  },
  // Cluster API's CLI (`clusterctl generate cluster`, `move`), at the managers' version, the
  // KubeadmControlPlane CRDs the providers' templates use, and clusterctl's own CRDs (its provider
  // inventory, which `clusterctl init` installs) (~30 s warm, 49 MB).
  clusterctl: {
    name: 'clusterctl',
    moduleDir: 'clusterctl',
    upstream: 'sigs.k8s.io/cluster-api',
    binaries: [
      {
        name: 'clusterctl',
        pkg: 'sigs.k8s.io/cluster-api/cmd/clusterctl',
        envVar: 'CAPSTAN_CLUSTERCTL_BINARY',
      },
    ],
    versionFlags: (version, releasedAt) =>
      kubeVersionFlags(['sigs.k8s.io/cluster-api/version'], version, releasedAt),
    data: [
      ['controlplane/kubeadm/config/crd/bases', 'crds/kubeadm-control-plane'],
      ['cmd/clusterctl/config/crd/bases', 'crds/clusterctl'],
    ],
  },
};

/** The version the component's wrapper module pins for its upstream module. */
export const componentVersion = (spec: ComponentSpec): string => pinnedVersion(spec.moduleDir, spec.upstream);
