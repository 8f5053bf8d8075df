// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VARIABLE} is clusterctl's substitution syntax, meant literally here.
/**
 * The objects of a cluster template, as clusterctl reads them: `${VARIABLE}` placeholders that
 * `clusterctl generate cluster` fills (`CLUSTER_NAME`, `NAMESPACE`, `KUBERNETES_VERSION`, the
 * machine counts, and ours: `VCD_SITE`, `VCD_ORG`, `VCD_ORGVDC`, `VCD_ORGVDC_NETWORK`,
 * `VCD_CATALOG`, `VCD_TEMPLATE_NAME`, credentials). Each flavor composes these.
 */

/** One Kubernetes object of a template. */
export type TemplateObject = { apiVersion: string; kind: string; metadata: Record<string, unknown> } & Record<
  string,
  unknown
>;

export const INFRA_GROUP = 'infrastructure.cluster.x-k8s.io';
export const BOOTSTRAP_GROUP = 'bootstrap.cluster.x-k8s.io';
export const CONTROL_PLANE_GROUP = 'controlplane.cluster.x-k8s.io';
const INFRA_VERSION = `${INFRA_GROUP}/v1beta3`;

export const meta = (name: string) => ({ name, namespace: '${NAMESPACE}' });
const CLUSTER = '${CLUSTER_NAME}';

/**
 * The credentials Secret, base64 as clusterctl users write them (CAPVCD's `VCD_REFRESH_TOKEN_B64`):
 * `VCD_REFRESH_TOKEN_B64`, or `VCD_USERNAME_B64` and `VCD_PASSWORD_B64`; `VCD_CA_BUNDLE_B64` (a PEM
 * CA bundle) optional. Base64 survives any character and a multi-line PEM.
 */
export const credentialsSecret = (name = `${CLUSTER}-vcd`): TemplateObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: meta(name),
  type: 'Opaque',
  data: {
    username: '${VCD_USERNAME_B64:=""}',
    password: '${VCD_PASSWORD_B64:=""}',
    refreshToken: '${VCD_REFRESH_TOKEN_B64:=""}',
    'ca.crt': '${VCD_CA_BUNDLE_B64:=""}',
  },
});

/** VCDCluster.spec without an endpoint: a load balancer is made, its VIP the endpoint. */
export const vcdClusterSpec = (): Record<string, unknown> => ({
  site: '${VCD_SITE}',
  org: '${VCD_ORG}',
  ovdc: '${VCD_ORGVDC}',
  ovdcNetwork: '${VCD_ORGVDC_NETWORK}',
  userContext: { secretRef: { name: `${CLUSTER}-vcd` } },
});

/** The Cluster, with a KubeadmControlPlane and a VCDCluster. */
export const cluster = (): TemplateObject => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Cluster',
  metadata: { ...meta(CLUSTER), labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER } },
  spec: {
    clusterNetwork: {
      pods: { cidrBlocks: ['${POD_CIDR:=100.96.0.0/11}'] },
      services: { cidrBlocks: ['${SERVICE_CIDR:=100.64.0.0/13}'] },
    },
    controlPlaneRef: {
      apiGroup: CONTROL_PLANE_GROUP,
      kind: 'KubeadmControlPlane',
      name: `${CLUSTER}-control-plane`,
    },
    infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'VCDCluster', name: CLUSTER },
  },
});

export const vcdCluster = (spec: Record<string, unknown>): TemplateObject => ({
  apiVersion: INFRA_VERSION,
  kind: 'VCDCluster',
  metadata: meta(CLUSTER),
  spec,
});

/** A VM shape from the catalog template; `role` names its sizing-policy variable's default. */
export const vcdMachineSpec = (): Record<string, unknown> => ({
  catalog: '${VCD_CATALOG}',
  template: '${VCD_TEMPLATE_NAME}',
  diskSize: '${VCD_DISK_SIZE:=20Gi}',
});

export const vcdMachineTemplate = (name: string, spec: Record<string, unknown>): TemplateObject => ({
  apiVersion: INFRA_VERSION,
  kind: 'VCDMachineTemplate',
  metadata: meta(name),
  spec: { template: { spec } },
});

/** The kubelet of every node: the external VCD cloud provider sets its providerID and addresses. */
const nodeRegistration = {
  criSocket: '/var/run/containerd/containerd.sock',
  kubeletExtraArgs: [{ name: 'cloud-provider', value: 'external' }],
};

/** KubeadmConfig spec of every node (cloud-config unless `format` says otherwise). */
export const kubeadmConfigSpec = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  users: [
    {
      name: 'capvcd',
      sshAuthorizedKeys: ['${SSH_AUTHORIZED_KEY:=""}'],
      sudo: 'ALL=(ALL) NOPASSWD:ALL',
    },
  ],
  ...extra,
});

/** The control plane's KubeadmConfig spec: init and join both register with the external cloud provider. */
export const controlPlaneConfigSpec = (extra: Record<string, unknown> = {}) =>
  kubeadmConfigSpec({
    initConfiguration: { nodeRegistration },
    joinConfiguration: { nodeRegistration },
    ...extra,
  });

/** Workers join only. */
export const workerConfigSpec = (extra: Record<string, unknown> = {}) =>
  kubeadmConfigSpec({ joinConfiguration: { nodeRegistration }, ...extra });

export const kubeadmControlPlane = (configSpec: Record<string, unknown>): TemplateObject => ({
  apiVersion: `${CONTROL_PLANE_GROUP}/v1beta2`,
  kind: 'KubeadmControlPlane',
  metadata: meta(`${CLUSTER}-control-plane`),
  spec: {
    replicas: '${CONTROL_PLANE_MACHINE_COUNT}',
    version: '${KUBERNETES_VERSION}',
    machineTemplate: {
      spec: {
        infrastructureRef: {
          apiGroup: INFRA_GROUP,
          kind: 'VCDMachineTemplate',
          name: `${CLUSTER}-control-plane`,
        },
      },
    },
    kubeadmConfigSpec: configSpec,
  },
});

export const kubeadmConfigTemplate = (name: string, spec: Record<string, unknown>): TemplateObject => ({
  apiVersion: `${BOOTSTRAP_GROUP}/v1beta2`,
  kind: 'KubeadmConfigTemplate',
  metadata: meta(name),
  spec: { template: { spec } },
});

/** The workers: a MachineDeployment with its two templates (`name` is theirs too). */
export const machineDeployment = (name: string, failureDomain?: string): TemplateObject => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'MachineDeployment',
  metadata: { ...meta(name), labels: { 'cluster.x-k8s.io/cluster-name': CLUSTER } },
  spec: {
    clusterName: CLUSTER,
    replicas: '${WORKER_MACHINE_COUNT}',
    selector: { matchLabels: {} },
    rollout: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
    template: {
      spec: {
        clusterName: CLUSTER,
        version: '${KUBERNETES_VERSION}',
        bootstrap: { configRef: { apiGroup: BOOTSTRAP_GROUP, kind: 'KubeadmConfigTemplate', name } },
        infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'VCDMachineTemplate', name },
        ...(failureDomain ? { failureDomain } : {}),
      },
    },
  },
});
