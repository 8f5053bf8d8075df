/**
 * The provider inventory `clusterctl init` records, written on an envtest management cluster whose
 * Cluster API and capvcd run as processes (no Deployments): clusterctl's Provider CRD, one
 * Provider per installed provider (named and labelled as init names them: `cluster-api`,
 * `bootstrap-kubeadm`, `control-plane-kubeadm`, `infrastructure-capvcd`), and init's common labels
 * on each provider's CRDs (`clusterctl move` finds the kinds to move by them). A real `clusterctl
 * init` is not run: it installs cert-manager first (three more Go builds and controllers to run)
 * and Deployments that cannot run here.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type ControlPlane, type CrdObject, readManifests } from '@capstan/envtest';

/** The label clusterctl puts on everything it installs, and the one naming the provider. */
const CLUSTERCTL_LABEL = 'clusterctl.cluster.x-k8s.io';
const PROVIDER_LABEL = 'cluster.x-k8s.io/provider';

interface InventoryEntry {
  /** clusterctl's provider type, e.g. `CoreProvider`. */
  type: 'CoreProvider' | 'BootstrapProvider' | 'ControlPlaneProvider' | 'InfrastructureProvider';
  providerName: string;
  namespace: string;
  version: string;
  /** The API groups of the provider's CRDs. */
  groups: string[];
}

/** init's name for a provider: its type's prefix and its name (clusterctl's "manifest label"). */
export function manifestLabel(entry: Pick<InventoryEntry, 'type' | 'providerName'>): string {
  const prefix: Record<InventoryEntry['type'], string> = {
    CoreProvider: '',
    BootstrapProvider: 'bootstrap-',
    ControlPlaneProvider: 'control-plane-',
    InfrastructureProvider: 'infrastructure-',
  };
  return `${prefix[entry.type]}${entry.providerName}`;
}

/** Cluster API's providers as envtest runs them (KubeadmControlPlane when `kcp`), and capvcd. */
export function inventory(capvcdVersion: string, kcp: boolean): InventoryEntry[] {
  const capi = 'v1.14.2';
  return [
    {
      type: 'CoreProvider',
      providerName: 'cluster-api',
      namespace: 'capi-system',
      version: capi,
      groups: [
        'cluster.x-k8s.io',
        'addons.cluster.x-k8s.io',
        'ipam.cluster.x-k8s.io',
        'runtime.cluster.x-k8s.io',
      ],
    },
    {
      type: 'BootstrapProvider',
      providerName: 'kubeadm',
      namespace: 'capi-kubeadm-bootstrap-system',
      version: capi,
      groups: ['bootstrap.cluster.x-k8s.io'],
    },
    ...(kcp
      ? [
          {
            type: 'ControlPlaneProvider' as const,
            providerName: 'kubeadm',
            namespace: 'capi-kubeadm-control-plane-system',
            version: capi,
            groups: ['controlplane.cluster.x-k8s.io'],
          },
        ]
      : []),
    {
      type: 'InfrastructureProvider',
      providerName: 'capvcd',
      namespace: 'capvcd-system',
      version: capvcdVersion,
      groups: ['infrastructure.cluster.x-k8s.io'],
    },
  ];
}

/** Writes the inventory on `plane`: the Provider CRD, init's labels on the CRDs, the Providers. */
export async function recordInventory(
  plane: ControlPlane,
  clusterctlCrdDir: string,
  entries: InventoryEntry[],
): Promise<void> {
  const providerCrd = readdirSync(clusterctlCrdDir)
    .filter((f) => f.endsWith('_providers.yaml'))
    .flatMap((f) => readManifests(join(clusterctlCrdDir, f))) as CrdObject[];
  await plane.installCRDs(
    providerCrd.map((crd) => ({
      ...crd,
      metadata: {
        ...crd.metadata,
        labels: { [CLUSTERCTL_LABEL]: '', [`${CLUSTERCTL_LABEL}/core`]: 'inventory' },
      },
    })),
  );
  const crds = await plane.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
  const items = (crds.body as { items: Array<{ metadata: { name: string }; spec: { group: string } }> })
    .items;
  for (const entry of entries)
    for (const crd of items.filter((c) => entry.groups.includes(c.spec.group))) {
      const labels = { [CLUSTERCTL_LABEL]: '', [PROVIDER_LABEL]: manifestLabel(entry) };
      const answer = await plane.request(
        'PATCH',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`,
        { metadata: { labels } },
        'application/merge-patch+json',
      );
      if (answer.status !== 200)
        throw new Error(`labelling ${crd.metadata.name}: ${JSON.stringify(answer.body)}`);
    }
  await plane.createObjects(
    entries.flatMap((entry) => [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: entry.namespace } },
      {
        apiVersion: 'clusterctl.cluster.x-k8s.io/v1alpha3',
        kind: 'Provider',
        metadata: {
          name: manifestLabel(entry),
          namespace: entry.namespace,
          labels: {
            [CLUSTERCTL_LABEL]: '',
            [PROVIDER_LABEL]: manifestLabel(entry),
            [`${CLUSTERCTL_LABEL}/core`]: 'inventory',
          },
        },
        providerName: entry.providerName,
        type: entry.type,
        version: entry.version,
      },
    ]),
    { ignoreExisting: true },
  );
}
