/**
 * Cluster API: the core manager and the kubeadm bootstrap provider (CABPK), optionally the
 * KubeadmControlPlane provider (KCP), each under its own
 * service account identity with its module's RBAC, their CRDs from the module with the contract
 * labels Cluster API reads. The managers cannot run without a webhook server, so each gets a
 * serving certificate; no admission webhook configuration is installed (nothing defaults or
 * validates objects: create them complete), but each CRD serving two versions converts through
 * its manager's `/convert`, as in a cluster (a `v1beta1` object is stored as `v1beta2` converts it). CABPK runs with the Ignition format gate on, so a
 * `format: ignition` KubeadmConfig gets ignition data as it would in a cluster that enabled it.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CertPair } from '@capstan/runtime/testing';
import type { ClusterApiAssets, KubeadmControlPlaneAssets } from './assets.js';
import type { CrdObject } from './crds.js';
import { httpOk } from './http.js';
import { type ManifestObject, readManifests } from './manifests.js';
import { freePorts } from './ports.js';
import { ManagedProcess } from './process.js';
import { waitFor } from './wait.js';

/**
 * The managers: their RBAC name prefix and namespace (as each module's kustomize sets them), and
 * the label of the ClusterRoles their role aggregates, when it does.
 */
export const clusterApiManagers = [
  {
    component: 'core',
    prefix: 'capi-',
    namespace: 'capi-system',
    serviceAccount: 'capi-manager',
    aggregateLabel: 'cluster.x-k8s.io/aggregate-to-manager',
  },
  {
    component: 'kubeadm-bootstrap',
    prefix: 'capi-kubeadm-bootstrap-',
    namespace: 'capi-kubeadm-bootstrap-system',
    serviceAccount: 'capi-kubeadm-bootstrap-manager',
  },
  {
    component: 'kubeadm-control-plane',
    prefix: 'capi-kubeadm-control-plane-',
    namespace: 'capi-kubeadm-control-plane-system',
    serviceAccount: 'capi-kubeadm-control-plane-manager',
    aggregateLabel: 'kubeadm.controlplane.cluster.x-k8s.io/aggregate-to-manager',
  },
] as const;

type ManagerSpec = (typeof clusterApiManagers)[number];

/**
 * The label a ClusterRole carries to grant the core manager access to an infrastructure
 * provider's kinds (the core manager's role aggregates them), as every provider's RBAC does.
 */
export const aggregateToManagerLabel = clusterApiManagers[0].aggregateLabel;

/**
 * A CRD with the contract labels Cluster API resolves references by: for Cluster API's own CRDs
 * (`contract` omitted) `cluster.x-k8s.io/v1beta1: v1beta1` and `cluster.x-k8s.io/v1beta2: v1beta2`;
 * for a provider's CRD, `cluster.x-k8s.io/<contract>: <its versions, underscore-separated>`.
 */
export function withContractLabels<T extends CrdObject>(
  crd: T,
  contract?: { contract: string; versions: string[] },
): T {
  const labels = contract
    ? { [`cluster.x-k8s.io/${contract.contract}`]: contract.versions.join('_') }
    : { 'cluster.x-k8s.io/v1beta1': 'v1beta1', 'cluster.x-k8s.io/v1beta2': 'v1beta2' };
  const metadata = (crd.metadata ?? {}) as { labels?: Record<string, string> };
  return { ...crd, metadata: { ...metadata, labels: { ...metadata.labels, ...labels } } };
}

/** What Cluster API needs from the control plane it runs on. */
export interface ClusterApiHost {
  workDir: string;
  installCRDs(crds: CrdObject[]): Promise<void>;
  createObjects(objects: ManifestObject[], options?: { ignoreExisting?: boolean }): Promise<void>;
  serviceAccountKubeConfig(namespace: string, name: string): Promise<{ path: string }>;
  issueServing(commonName: string): CertPair;
  /** The CA that issues serving certificates (the API server trusts it for conversion). */
  caPem: string;
}

/**
 * The CRD with a conversion stanza calling `url` (trusting `caPem`) when it serves more than one
 * version; with one version, as it is. Cluster API's CRD bases leave the stanza to kustomize.
 */
export function withConversionWebhook<T extends CrdObject>(crd: T, url: string, caPem: string): T {
  const spec = (crd as { spec?: { versions?: unknown[] } }).spec;
  const versions = spec?.versions ?? [];
  if (versions.length < 2) return crd;
  const conversion = {
    strategy: 'Webhook',
    webhook: {
      conversionReviewVersions: ['v1', 'v1beta1'],
      clientConfig: { url, caBundle: Buffer.from(caPem).toString('base64') },
    },
  };
  return { ...crd, spec: { ...spec, conversion } };
}

/** Where one manager's binary, CRD bases and `config/rbac` are. */
interface ManagerFiles {
  binary: string;
  crdDir: string;
  rbacDir: string;
}

function managerFiles(
  manager: ManagerSpec,
  assets: ClusterApiAssets,
  kcp?: KubeadmControlPlaneAssets,
): ManagerFiles {
  if (manager.component === 'kubeadm-control-plane') {
    if (!kcp) throw new Error('KubeadmControlPlane was asked for, but its assets are missing');
    return { binary: kcp.manager, crdDir: kcp.crdDir, rbacDir: kcp.rbacDir };
  }
  return {
    binary: manager.component === 'core' ? assets.manager : assets.kubeadmBootstrapManager,
    crdDir: join(assets.crdDir, manager.component),
    rbacDir: join(assets.rbacDir, manager.component),
  };
}

/**
 * The RBAC of one manager: its module's ClusterRole, renamed as kustomize does, bound to its
 * identity. As the modules' default kustomizations do, a manager with an aggregation label has its
 * role join an aggregated role, which also collects what providers grant it.
 */
function managerRbac(files: ManagerFiles, manager: ManagerSpec): ManifestObject[] {
  const roleName = `${manager.prefix}manager-role`;
  const role = readManifests(join(files.rbacDir, 'role.yaml')).find(
    (o) => o.kind === 'ClusterRole',
  ) as ManifestObject;
  const aggregates = 'aggregateLabel' in manager;
  const labels = aggregates ? { [manager.aggregateLabel]: 'true' } : {};
  const objects: ManifestObject[] = [{ ...role, metadata: { ...role.metadata, name: roleName, labels } }];
  let bound = roleName;
  if (aggregates) {
    const aggregated = readManifests(join(files.rbacDir, 'aggregated_role.yaml'))[0] as ManifestObject;
    bound = `${manager.prefix}aggregated-manager-role`;
    objects.push({ ...aggregated, metadata: { ...aggregated.metadata, name: bound } });
  }
  objects.push({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `${manager.prefix}manager-rolebinding` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: bound },
    subjects: [{ kind: 'ServiceAccount', name: manager.serviceAccount, namespace: manager.namespace }],
  });
  return objects;
}

/** Feature gates a manager runs with (`--feature-gates`), beyond Cluster API's defaults. */
export const clusterApiFeatureGates: Record<ManagerSpec['component'], string[]> = {
  core: [],
  // Alpha in v1.14: KubeadmConfig `format: ignition` (Flatcar and other Ignition images).
  'kubeadm-bootstrap': ['KubeadmBootstrapFormatIgnition=true'],
  // KCP generates the KubeadmConfigs of its machines, in the format its spec asks for.
  'kubeadm-control-plane': ['KubeadmBootstrapFormatIgnition=true'],
};

/**
 * Installs CRDs and RBAC, then starts the core manager and CABPK, and KCP when its assets are
 * given, and waits until each reports ready.
 */
export async function startClusterApi(
  host: ClusterApiHost,
  assets: ClusterApiAssets,
  kcp?: KubeadmControlPlaneAssets,
): Promise<ManagedProcess[]> {
  const chosen = clusterApiManagers.filter((m) => kcp || m.component !== 'kubeadm-control-plane');
  const webhookPorts = await freePorts(chosen.length);
  const managers = chosen.map((manager, i) => ({
    manager,
    files: managerFiles(manager, assets, kcp),
    webhookPort: webhookPorts[i] as number,
  }));
  // Each manager converts its own CRDs' versions, on its webhook port.
  const crds = managers.flatMap(({ files, webhookPort }) =>
    readdirSync(files.crdDir)
      .filter((f) => f.endsWith('.yaml'))
      .flatMap((f) => readManifests(join(files.crdDir, f)) as CrdObject[])
      .map((crd) =>
        withConversionWebhook(
          withContractLabels(crd),
          `https://127.0.0.1:${webhookPort}/convert`,
          host.caPem,
        ),
      ),
  );
  await host.installCRDs(crds);
  const serving = host.issueServing('cluster-api-webhooks');
  const started: ManagedProcess[] = [];
  try {
    for (const { manager, files, webhookPort } of managers) {
      await host.createObjects(managerRbac(files, manager), { ignoreExisting: true });
      const identity = await host.serviceAccountKubeConfig(manager.namespace, manager.serviceAccount);
      const certDir = join(host.workDir, `${manager.serviceAccount}-webhook`);
      mkdirSync(certDir, { recursive: true });
      writeFileSync(join(certDir, 'tls.crt'), serving.cert);
      writeFileSync(join(certDir, 'tls.key'), serving.key, { mode: 0o600 });
      const [healthPort, diagnosticsPort] = await freePorts(2);
      const gates = clusterApiFeatureGates[manager.component];
      const proc = ManagedProcess.start(
        manager.serviceAccount,
        files.binary,
        [
          `--kubeconfig=${identity.path}`,
          '--leader-elect=false',
          `--webhook-cert-dir=${certDir}`,
          `--webhook-port=${webhookPort}`,
          `--health-addr=127.0.0.1:${healthPort}`,
          `--diagnostics-address=127.0.0.1:${diagnosticsPort}`,
          '--insecure-diagnostics',
          '--skip-crd-migration-phases=StorageVersionMigration,CleanupManagedFields',
          // Client budgets stay at Cluster API's defaults (100/200; 20/30 to the workload cluster).
          // Raised to 200/400 (as kube-controller-manager's are here), a 100-machine rollout was
          // slower, not faster: the apiserver's CPU is the bound, and the extra budget went to
          // conflicting Machine status patches (see docs/ARCHITECTURE.md, capvcd's scale row).
          '--v=1',
          ...(gates.length > 0 ? [`--feature-gates=${gates.join(',')}`] : []),
        ],
        join(host.workDir, `${manager.serviceAccount}.log`),
      );
      started.push(proc);
      await waitFor(manager.serviceAccount, proc, 60_000, () =>
        httpOk(`http://127.0.0.1:${healthPort}/readyz`),
      );
    }
    return started;
  } catch (err) {
    await Promise.all(started.map((p) => p.stop(2_000)));
    throw err;
  }
}
