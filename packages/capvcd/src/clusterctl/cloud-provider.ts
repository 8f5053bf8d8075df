// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VARIABLE} is clusterctl's substitution syntax, meant literally here.
/**
 * The `cloud-provider` flavor's hand-off to the workload cluster: a ClusterResourceSet that applies,
 * once the cluster is up, what the VCD cloud provider (CPI) and CSI driver read: their config maps
 * (site, org, VDC, network, the cluster's vApp and id, the same values the VCDCluster publishes in
 * its status) and the `vcloud-basic-auth` Secret with the API token. It replaces CAPVCD's manual
 * steps; the CPI and CSI themselves are installed as their projects document.
 */
import { infraIdFor } from '../cluster/hand-off.js';
import { vappNameFor } from '../naming.js';
import { meta, type TemplateObject } from './objects.js';
import { toYaml } from './yaml.js';

const CLUSTER = '${CLUSTER_NAME}';
/** The ConfigMap and Secret the ClusterResourceSet applies, named after the cluster. */
export const cloudConfigName = (cluster: string): string => `${cluster}-vcd-cloud-config`;

const workloadConfigMap = (name: string, file: string, config: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'kube-system' },
  data: { [file]: toYaml(config) },
});

/** The CPI's and CSI's configuration, as their config maps hold it. */
function workloadConfigMaps(): string {
  const vcd = {
    host: '${VCD_SITE}',
    org: '${VCD_ORG}',
    vdc: '${VCD_ORGVDC}',
    vAppName: vappNameFor(CLUSTER),
  };
  const clusterid = infraIdFor('${NAMESPACE}', CLUSTER);
  return [
    workloadConfigMap('vcloud-ccm-configmap', 'vcloud-ccm-config.yaml', {
      vcd,
      loadbalancer: {
        network: '${VCD_ORGVDC_NETWORK}',
        ports: { http: 80, https: 443 },
        enableVirtualServiceSharedIP: false,
      },
      clusterid,
    }),
    workloadConfigMap('vcloud-csi-configmap', 'vcloud-csi-config.yaml', { vcd, clusterid }),
  ]
    .map(toYaml)
    .join('---\n');
}

/** The API token as the CPI and CSI read it (`vcloud-basic-auth` in kube-system). */
const workloadSecret = (): string =>
  toYaml({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'vcloud-basic-auth', namespace: 'kube-system' },
    data: { username: '', password: '', refreshToken: '${VCD_REFRESH_TOKEN_B64}' },
  });

/** The ClusterResourceSet and the ConfigMap and Secret it applies to this cluster. */
export function cloudProviderObjects(): TemplateObject[] {
  const name = cloudConfigName(CLUSTER);
  return [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta(name),
      data: { 'vcloud-config.yaml': workloadConfigMaps() },
    },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: meta(name),
      type: 'addons.cluster.x-k8s.io/resource-set',
      stringData: { 'vcloud-basic-auth.yaml': workloadSecret() },
    },
    {
      apiVersion: 'addons.cluster.x-k8s.io/v1beta2',
      kind: 'ClusterResourceSet',
      metadata: meta(name),
      spec: {
        strategy: 'ApplyOnce',
        clusterSelector: { matchLabels: { 'cluster.x-k8s.io/cluster-name': CLUSTER } },
        resources: [
          { kind: 'ConfigMap', name },
          { kind: 'Secret', name },
        ],
      },
    },
  ];
}
