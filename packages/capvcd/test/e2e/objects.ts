/**
 * The objects a user writes for a cluster on VCD under Cluster API: Cluster + VCDCluster, single
 * Machines with their KubeadmConfig and VCDMachine, MachineDeployments with their templates.
 * Created complete: envtest installs no CAPI webhook to default them.
 */

import type { AntiAffinitySpec, VCDMachineSpec, Zone } from '@capstan/capvcd';
import type { ManifestObject } from '@capstan/envtest';

export const INFRA = 'infrastructure.cluster.x-k8s.io';
export const BOOTSTRAP = 'bootstrap.cluster.x-k8s.io';
export const K8S_VERSION = 'v1.35.0';
/** The template every test machine clones unless it says otherwise. */
export const TEMPLATE = { catalog: 'templates', template: 'ubuntu-2404-kube-v1.35' };

/** Where the clusters live: their namespace and VCD site. */
export interface Site {
  namespace: string;
  url: string;
}

/**
 * What a cluster may add: a user-supplied endpoint (no load balancer), a VIP asked of the load
 * balancer (CAPVCD's meaning of a host given), failure domains, anti-affinity.
 */
export interface ClusterExtras {
  endpoint?: { host: string; port: number };
  vip?: string;
  zones?: Zone[];
  /** The org VDC network (default net-a; net-a-ips is behind a gateway using IP Spaces). */
  network?: string;
  /** `spec.antiAffinity`: VCD anti-affinity rules per control plane and MachineDeployment. */
  antiAffinity?: AntiAffinitySpec;
}

/** Cluster + VCDCluster in tenant-a's vdc-a on net-a, credentials from Secret `<name>-vcd`. */
export function clusterObjects(site: Site, name: string, extras: ClusterExtras = {}): ManifestObject[] {
  return [
    {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Cluster',
      metadata: { name, namespace: site.namespace },
      spec: { infrastructureRef: { apiGroup: INFRA, kind: 'VCDCluster', name } },
    },
    {
      apiVersion: `${INFRA}/v1beta3`,
      kind: 'VCDCluster',
      metadata: { name, namespace: site.namespace },
      spec: {
        site: site.url,
        org: 'tenant-a',
        ovdc: 'vdc-a',
        ovdcNetwork: extras.network ?? 'net-a',
        userContext: { secretRef: { name: `${name}-vcd` } },
        ...(extras.endpoint
          ? { controlPlaneEndpoint: extras.endpoint, loadBalancerConfigSpec: { disabled: true } }
          : {}),
        ...(extras.vip ? { controlPlaneEndpoint: { host: extras.vip, port: 6443 } } : {}),
        ...(extras.zones ? { multiZoneSpec: { zones: extras.zones } } : {}),
        ...(extras.antiAffinity ? { antiAffinity: extras.antiAffinity } : {}),
      },
    },
  ];
}

/** What one Machine may add to the defaults. */
export interface MachineExtras {
  /** A control-plane Machine (the default) or a worker. */
  controlPlane?: boolean;
  /** KubeadmConfig spec (default: one preKubeadmCommand). */
  kubeadm?: Record<string, unknown>;
  /** VCDMachine spec beyond the template. */
  vcdMachine?: Partial<VCDMachineSpec>;
  failureDomain?: string;
}

/** One Machine with its own KubeadmConfig and VCDMachine. */
export function machineObjects(
  namespace: string,
  cluster: string,
  name: string,
  extras: MachineExtras = {},
): ManifestObject[] {
  const controlPlane = extras.controlPlane ?? true;
  const labels = {
    'cluster.x-k8s.io/cluster-name': cluster,
    ...(controlPlane ? { 'cluster.x-k8s.io/control-plane': '' } : {}),
  };
  const metadata = { name, namespace, labels };
  return [
    {
      apiVersion: `${BOOTSTRAP}/v1beta2`,
      kind: 'KubeadmConfig',
      metadata,
      spec: extras.kubeadm ?? { preKubeadmCommands: [controlPlane ? 'echo control plane' : 'echo worker'] },
    },
    {
      apiVersion: `${INFRA}/v1beta3`,
      kind: 'VCDMachine',
      metadata,
      spec: { ...TEMPLATE, ...extras.vcdMachine },
    },
    {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      metadata,
      spec: {
        clusterName: cluster,
        version: K8S_VERSION,
        bootstrap: { configRef: { apiGroup: BOOTSTRAP, kind: 'KubeadmConfig', name } },
        infrastructureRef: { apiGroup: INFRA, kind: 'VCDMachine', name },
        ...(extras.failureDomain ? { failureDomain: extras.failureDomain } : {}),
      },
    },
  ];
}

/** The label that tells one MachineDeployment's Machines from the rest. */
export const POOL_LABEL = 'capvcd.test/pool';

/** What a MachineDeployment may add: its VCDMachineTemplate's spec, its failure domain. */
export interface WorkerExtras {
  vcdMachine?: Partial<VCDMachineSpec>;
  failureDomain?: string;
}

/** A MachineDeployment of workers with its two templates (30 GiB disks unless `vcdMachine` says). */
export function workerObjects(
  namespace: string,
  cluster: string,
  name: string,
  replicas: number,
  extras: WorkerExtras = {},
): ManifestObject[] {
  const selector = { 'cluster.x-k8s.io/cluster-name': cluster, [POOL_LABEL]: name };
  return [
    {
      apiVersion: `${BOOTSTRAP}/v1beta2`,
      kind: 'KubeadmConfigTemplate',
      metadata: { name, namespace },
      spec: { template: { spec: { preKubeadmCommands: ['echo worker'] } } },
    },
    {
      apiVersion: `${INFRA}/v1beta3`,
      kind: 'VCDMachineTemplate',
      metadata: { name, namespace },
      spec: { template: { spec: { ...TEMPLATE, diskSize: '30Gi', ...extras.vcdMachine } } },
    },
    {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'MachineDeployment',
      metadata: { name, namespace, labels: { 'cluster.x-k8s.io/cluster-name': cluster } },
      spec: {
        clusterName: cluster,
        replicas,
        selector: { matchLabels: selector },
        rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
        template: {
          metadata: { labels: selector },
          spec: {
            clusterName: cluster,
            version: K8S_VERSION,
            bootstrap: { configRef: { apiGroup: BOOTSTRAP, kind: 'KubeadmConfigTemplate', name } },
            infrastructureRef: { apiGroup: INFRA, kind: 'VCDMachineTemplate', name },
            ...(extras.failureDomain ? { failureDomain: extras.failureDomain } : {}),
          },
        },
      },
    },
  ];
}
