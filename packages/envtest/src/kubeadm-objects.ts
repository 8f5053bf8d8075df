/**
 * The objects kubeadm leaves in a cluster, built from a node's kubeadm configuration: the Node
 * labels and taints it registers, the mirror pods of the static pods it writes (with kubeadm's
 * labels), the `kubeadm-config` and `kubelet-config` ConfigMaps and the `cluster-info` ConfigMap
 * `kubeadm init` uploads, and its bootstrap-token Secrets. Pure, so property-tested.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import type { KubeadmStep } from './guest-bootstrap.js';
import type { ManifestObject } from './manifests.js';
import type { NodeTaint } from './nodes.js';

/** The label and taint kubeadm gives a control-plane node. */
export const controlPlaneNodeRole = 'node-role.kubernetes.io/control-plane';

/** The static pods kubeadm writes on a control-plane node; `etcd` only with local (stacked) etcd. */
export const controlPlaneComponents = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'];

type Doc = Record<string, unknown>;
const record = (v: unknown): Doc => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Doc) : {});

/** Whether a ClusterConfiguration names external etcd (then kubeadm writes no etcd static pod). */
export const usesExternalEtcd = (clusterConfiguration: Doc): boolean =>
  record(clusterConfiguration.etcd).external !== undefined;

/** The Node's labels and taints as kubeadm registers them for `step`. */
export function nodeRegistration(
  step: KubeadmStep,
  nodeConfiguration: Doc | undefined,
): { labels: Record<string, string>; taints: NodeTaint[] } {
  const registration = record(nodeConfiguration?.nodeRegistration);
  const controlPlane = step !== 'join';
  const defaultTaints: NodeTaint[] = controlPlane
    ? [{ key: controlPlaneNodeRole, effect: 'NoSchedule' }]
    : [];
  // kubeadm's rule: a `taints` list given (even empty) replaces the default.
  const taints = Array.isArray(registration.taints) ? (registration.taints as NodeTaint[]) : defaultTaints;
  const labels: Record<string, string> = controlPlane
    ? { [controlPlaneNodeRole]: '', 'node.kubernetes.io/exclude-from-external-load-balancers': '' }
    : {};
  return { labels, taints };
}

/** The mirror pod of one static pod kubeadm writes on `node` (uid: its owner reference). */
export function mirrorPod(
  component: string,
  node: { name: string; uid: string },
  image: string,
): ManifestObject {
  const hash = createHash('sha256').update(`${component}/${node.name}/${image}`).digest('hex').slice(0, 32);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${component}-${node.name}`,
      namespace: 'kube-system',
      labels: { component, tier: 'control-plane' },
      annotations: {
        'kubernetes.io/config.source': 'file',
        'kubernetes.io/config.hash': hash,
        'kubernetes.io/config.mirror': hash,
      },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: node.uid, controller: true }],
    },
    spec: {
      nodeName: node.name,
      hostNetwork: true,
      containers: [{ name: component, image }],
      tolerations: [{ operator: 'Exists', effect: 'NoExecute' }],
    },
  };
}

/** The image kubeadm runs a component with (`imageRepository` default `registry.k8s.io`). */
export function componentImage(component: string, clusterConfiguration: Doc, version: string): string {
  const repository = (clusterConfiguration.imageRepository as string | undefined) || 'registry.k8s.io';
  const etcd = record(record(clusterConfiguration.etcd).local);
  const tag = component === 'etcd' ? ((etcd.imageTag as string | undefined) ?? '3.6.5-0') : version;
  return `${repository}/${component}:${tag}`;
}

/** The mirror pods of a control-plane node: the three components, and etcd unless it is external. */
export function controlPlanePods(
  node: { name: string; uid: string },
  clusterConfiguration: Doc,
  version: string,
): ManifestObject[] {
  const components = usesExternalEtcd(clusterConfiguration)
    ? controlPlaneComponents
    : [...controlPlaneComponents, 'etcd'];
  return components.map((c) => mirrorPod(c, node, componentImage(c, clusterConfiguration, version)));
}

const configMap = (namespace: string, name: string, data: Record<string, string>): ManifestObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data,
});

/**
 * What `kubeadm init` uploads: `kube-system/kubeadm-config` (the ClusterConfiguration, its
 * version set), `kube-system/kubelet-config`, `kube-public/cluster-info` (the CA and endpoint,
 * for joins) and a `bootstrap-token-<id>` Secret per InitConfiguration bootstrap token.
 */
export function initUploads(
  documents: Record<string, Doc>,
  version: string,
  caPem: string,
): ManifestObject[] {
  const cluster: Doc = { ...(documents.ClusterConfiguration ?? {}), kubernetesVersion: version };
  const endpoint = (cluster.controlPlaneEndpoint as string | undefined) ?? '';
  const kubelet = documents.KubeletConfiguration ?? {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    cgroupDriver: 'systemd',
  };
  const clusterInfo = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: '',
        cluster: {
          'certificate-authority-data': Buffer.from(caPem).toString('base64'),
          server: endpoint ? `https://${endpoint}` : '',
        },
      },
    ],
    contexts: [],
    users: [],
  };
  const tokens = (record(documents.InitConfiguration).bootstrapTokens as unknown[] | undefined) ?? [];
  return [
    configMap('kube-system', 'kubeadm-config', { ClusterConfiguration: stringify(cluster) }),
    configMap('kube-system', 'kubelet-config', { kubelet: stringify(kubelet) }),
    configMap('kube-public', 'cluster-info', { kubeconfig: stringify(clusterInfo) }),
    ...tokens.map((t) => bootstrapTokenSecret(record(t))),
  ];
}

/** A bootstrap token Secret as kubeadm writes it (`<id>.<secret>`, usages, groups). */
export function bootstrapTokenSecret(token: Doc): ManifestObject {
  const match = /^([a-z0-9]{6})\.([a-z0-9]{16})$/.exec(String(token.token ?? ''));
  if (!match) throw new Error(`not a bootstrap token: ${JSON.stringify(token.token)}`);
  const usages = (token.usages as string[] | undefined) ?? ['signing', 'authentication'];
  const groups = (token.groups as string[] | undefined) ?? [
    'system:bootstrappers:kubeadm:default-node-token',
  ];
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${match[1]}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    stringData: {
      'token-id': match[1] as string,
      'token-secret': match[2] as string,
      ...Object.fromEntries(usages.map((u) => [`usage-bootstrap-${u}`, 'true'])),
      'auth-extra-groups': groups.join(','),
      ...(token.description ? { description: String(token.description) } : {}),
    },
  };
}

/**
 * A kwok `PortForward` for a pod: the apiserver's `pods/portforward` to `port` reaches
 * `127.0.0.1:<targetPort>` (kwok serves the node's kubelet API and forwards by pod name).
 */
export function podPortForward(pod: string, port: number, targetPort: number): ManifestObject {
  return {
    apiVersion: 'kwok.x-k8s.io/v1alpha1',
    kind: 'PortForward',
    metadata: { name: pod, namespace: 'kube-system' },
    spec: { forwards: [{ ports: [port], target: { port: targetPort, address: '127.0.0.1' } }] },
  };
}
