/**
 * The objects a user writes to ask Cluster API for the demo's cluster on Cloud Director, as every
 * CAPVCD cluster template does: a Cluster with its VCDCluster (no endpoint given, so capvcd makes a
 * VCD load balancer for it), a KubeadmControlPlane (stacked etcd, rolled one machine at a time)
 * with the VCDMachineTemplate of its machines, and a MachineDeployment of workers with its
 * KubeadmConfigTemplate and VCDMachineTemplate.
 */
import { CAPI_GROUP, CAPI_VERSION, CLUSTER_NAME_LABEL, GROUP, VERSION } from '@capstan/capvcd';
import type { ManifestObject } from '@capstan/envtest';

/** Where in vcdsim's sample cloud the cluster goes, and as whom. */
export interface CloudPlacement {
  /** vcdsim's URL. */
  site: string;
  org: string;
  ovdc: string;
  network: string;
  catalog: string;
  template: string;
  /** Name of the Secret holding the VCD credentials (and the site's CA). */
  credentialsSecret: string;
}

/** The cluster to ask for. */
export interface ClusterRequest {
  namespace: string;
  name: string;
  kubernetesVersion: string;
  /** KubeadmControlPlane replicas. */
  controlPlanes: number;
  workers: number;
  cloud: CloudPlacement;
}

const BOOTSTRAP = 'bootstrap.cluster.x-k8s.io';
const CONTROL_PLANE = 'controlplane.cluster.x-k8s.io';
const capi = `${CAPI_GROUP}/${CAPI_VERSION}`;
const infra = `${GROUP}/${VERSION}`;

/** The KubeadmControlPlane's name (its Machines are named from it). */
export const controlPlaneName = (cluster: string) => `${cluster}-control-plane`;
/** The workers' MachineDeployment's name. */
export const workerPool = (cluster: string) => `${cluster}-workers`;

/** Every object of {@link ClusterRequest}, in the order they can be created. */
export function clusterObjects(r: ClusterRequest): ManifestObject[] {
  return [...clusterWithInfrastructure(r), ...controlPlane(r), ...workers(r)];
}

/** The VCD machines every pool runs: the site's sample template. */
const machineSpec = (r: ClusterRequest) => ({ catalog: r.cloud.catalog, template: r.cloud.template });

/** The Cluster and its VCDCluster: no endpoint given, so capvcd makes a VCD load balancer for it. */
function clusterWithInfrastructure(r: ClusterRequest): ManifestObject[] {
  const { namespace, name } = r;
  return [
    {
      apiVersion: capi,
      kind: 'Cluster',
      metadata: { name, namespace },
      spec: {
        infrastructureRef: { apiGroup: GROUP, kind: 'VCDCluster', name },
        controlPlaneRef: {
          apiGroup: CONTROL_PLANE,
          kind: 'KubeadmControlPlane',
          name: controlPlaneName(name),
        },
      },
    },
    {
      apiVersion: infra,
      kind: 'VCDCluster',
      metadata: { name, namespace },
      spec: {
        site: r.cloud.site,
        org: r.cloud.org,
        ovdc: r.cloud.ovdc,
        ovdcNetwork: r.cloud.network,
        userContext: { secretRef: { name: r.cloud.credentialsSecret } },
      },
    },
  ];
}

/** The KubeadmControlPlane (stacked etcd, one machine at a time) and its VCDMachineTemplate. */
function controlPlane(r: ClusterRequest): ManifestObject[] {
  const { namespace, name } = r;
  const cp = controlPlaneName(name);
  return [
    {
      apiVersion: infra,
      kind: 'VCDMachineTemplate',
      metadata: { name: cp, namespace },
      spec: { template: { spec: machineSpec(r) } },
    },
    {
      apiVersion: `${CONTROL_PLANE}/v1beta2`,
      kind: 'KubeadmControlPlane',
      metadata: { name: cp, namespace, labels: { [CLUSTER_NAME_LABEL]: name } },
      spec: {
        replicas: r.controlPlanes,
        version: r.kubernetesVersion,
        machineTemplate: {
          spec: { infrastructureRef: { apiGroup: GROUP, kind: 'VCDMachineTemplate', name: cp } },
        },
        kubeadmConfigSpec: {
          format: 'cloud-config',
          clusterConfiguration: { etcd: { local: { dataDir: '/var/lib/etcd' } } },
          preKubeadmCommands: ['echo "capstan demo: control plane"'],
        },
        // Written out: no defaulting webhook runs here to fill it in.
        rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } },
      },
    },
  ];
}

/** The workers' MachineDeployment with its KubeadmConfigTemplate and VCDMachineTemplate. */
function workers(r: ClusterRequest): ManifestObject[] {
  const { namespace, name } = r;
  const pool = workerPool(name);
  const poolLabels = { [CLUSTER_NAME_LABEL]: name, 'demo.capstan.dev/pool': pool };
  return [
    {
      apiVersion: `${BOOTSTRAP}/v1beta2`,
      kind: 'KubeadmConfigTemplate',
      metadata: { name: pool, namespace },
      spec: { template: { spec: { preKubeadmCommands: ['echo "capstan demo: worker"'] } } },
    },
    {
      apiVersion: infra,
      kind: 'VCDMachineTemplate',
      metadata: { name: pool, namespace },
      spec: { template: { spec: machineSpec(r) } },
    },
    {
      apiVersion: capi,
      kind: 'MachineDeployment',
      metadata: { name: pool, namespace, labels: { [CLUSTER_NAME_LABEL]: name } },
      spec: {
        clusterName: name,
        replicas: r.workers,
        selector: { matchLabels: poolLabels },
        // Written out: no defaulting webhook runs here to fill it in.
        rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
        template: {
          metadata: { labels: poolLabels },
          spec: {
            clusterName: name,
            version: r.kubernetesVersion,
            bootstrap: { configRef: { apiGroup: BOOTSTRAP, kind: 'KubeadmConfigTemplate', name: pool } },
            infrastructureRef: { apiGroup: GROUP, kind: 'VCDMachineTemplate', name: pool },
          },
        },
      },
    },
  ];
}
