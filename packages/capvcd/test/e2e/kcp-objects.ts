/**
 * The objects a user writes for a KubeadmControlPlane cluster on VCD: the Cluster pointing at its
 * KubeadmControlPlane, the VCDMachineTemplate of its machines, and the KubeadmControlPlane with
 * external etcd (the workload plane's own etcd) and the Secrets naming its certificates. Created
 * complete: envtest installs no KCP webhook to default them.
 */
import type { AntiAffinitySpec, Zone } from '@capstan/capvcd';
import type { ManifestObject } from '@capstan/envtest';
import { clusterObjects, INFRA, K8S_VERSION, type Site, TEMPLATE } from './objects.js';

export const CONTROL_PLANE = 'controlplane.cluster.x-k8s.io';

/** Where the workload cluster's etcd is, and a client certificate the apiservers would use. */
export interface ExternalEtcd {
  endpoint: string;
  caPem: string;
  certPem: string;
  keyPem: string;
}

/**
 * Cluster (with its controlPlaneRef) + VCDCluster (with `zones`, its failure domains),
 * VCDMachineTemplate, KubeadmControlPlane; with
 * `etcd`, external etcd and its certificate Secrets, else stacked etcd (KCP makes its CA).
 */
export function kcpClusterObjects(
  site: Site,
  name: string,
  etcd: ExternalEtcd | undefined,
  options: { replicas: number; version?: string; zones?: Zone[]; antiAffinity?: AntiAffinitySpec },
): ManifestObject[] {
  const extras = {
    zones: options.zones,
    ...(options.antiAffinity ? { antiAffinity: options.antiAffinity } : {}),
  };
  const [cluster, vcdCluster] = clusterObjects(site, name, extras) as [ManifestObject, ManifestObject];
  const clusterSpec = cluster.spec as Record<string, unknown>;
  cluster.spec = {
    ...clusterSpec,
    controlPlaneRef: { apiGroup: CONTROL_PLANE, kind: 'KubeadmControlPlane', name },
  };
  const pem = (purpose: string, etcd: ExternalEtcd) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: `${name}-${purpose}`,
      namespace: site.namespace,
      labels: { 'cluster.x-k8s.io/cluster-name': name },
    },
    type: 'cluster.x-k8s.io/secret',
    stringData:
      purpose === 'etcd' ? { 'tls.crt': etcd.caPem } : { 'tls.crt': etcd.certPem, 'tls.key': etcd.keyPem },
  });
  return [
    ...(etcd ? [pem('etcd', etcd), pem('apiserver-etcd-client', etcd)] : []),
    cluster,
    vcdCluster,
    {
      apiVersion: `${INFRA}/v1beta3`,
      kind: 'VCDMachineTemplate',
      metadata: { name: `${name}-cp`, namespace: site.namespace },
      spec: { template: { spec: { ...TEMPLATE } } },
    },
    kubeadmControlPlane(site.namespace, name, etcd?.endpoint, options),
  ];
}

/** A KubeadmControlPlane (external etcd at `etcdEndpoint`, else stacked), rolled with maxSurge 1. */
export function kubeadmControlPlane(
  namespace: string,
  name: string,
  etcdEndpoint: string | undefined,
  options: { replicas: number; version?: string },
): ManifestObject {
  return {
    apiVersion: `${CONTROL_PLANE}/v1beta2`,
    kind: 'KubeadmControlPlane',
    metadata: { name, namespace },
    spec: {
      replicas: options.replicas,
      version: options.version ?? K8S_VERSION,
      machineTemplate: {
        spec: { infrastructureRef: { apiGroup: INFRA, kind: 'VCDMachineTemplate', name: `${name}-cp` } },
      },
      kubeadmConfigSpec: {
        format: 'cloud-config',
        clusterConfiguration: etcdEndpoint
          ? {
              etcd: {
                external: {
                  endpoints: [etcdEndpoint],
                  caFile: '/etc/kubernetes/pki/etcd/ca.crt',
                  certFile: '/etc/kubernetes/pki/apiserver-etcd-client.crt',
                  keyFile: '/etc/kubernetes/pki/apiserver-etcd-client.key',
                },
              },
            }
          : // Stacked etcd where kubeadm puts it (the schema wants some configuration here).
            { etcd: { local: { dataDir: '/var/lib/etcd' } } },
      },
      rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } },
    },
  };
}
