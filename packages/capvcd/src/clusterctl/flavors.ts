// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VARIABLE} is clusterctl's substitution syntax, meant literally here.
/**
 * The cluster-template flavors clusterctl offers for this provider (`clusterctl generate cluster
 * --flavor <name>`): each a list of template objects (see `objects.ts`); the ClusterClass and its
 * templates are in `cluster-class.ts`.
 */

import { cloudProviderObjects } from './cloud-provider.js';
import {
  CLUSTER_CLASS_NAME,
  CREDENTIALS_SECRET_VARIABLE,
  clusterClassObjects,
  topologyCluster,
} from './cluster-class.js';
import { kubeVipPod } from './kube-vip.js';
import {
  cluster,
  controlPlaneConfigSpec,
  credentialsSecret,
  kubeadmConfigTemplate,
  kubeadmControlPlane,
  machineDeployment,
  type TemplateObject,
  vcdCluster,
  vcdClusterSpec,
  vcdMachineSpec,
  vcdMachineTemplate,
  workerConfigSpec,
} from './objects.js';

/** One flavor: its name (`''` for the default) and what it is for. */
export interface Flavor {
  name: string;
  description: string;
  objects: () => TemplateObject[];
}

const CP = '${CLUSTER_NAME}-control-plane';
const endpoint = { host: '${CONTROL_PLANE_ENDPOINT_IP}', port: '${CONTROL_PLANE_ENDPOINT_PORT:=6443}' };

/**
 * A VCDCluster whose endpoint the user runs: no load balancer (a host alone would be the VIP of
 * one, as in CAPVCD).
 */
const ownEndpoint = () => ({
  ...vcdClusterSpec(),
  controlPlaneEndpoint: endpoint,
  loadBalancerConfigSpec: { disabled: true },
});

/** A worker pool: MachineDeployment, VCDMachineTemplate and KubeadmConfigTemplate of one name. */
const workers = (name: string, configSpec = workerConfigSpec(), failureDomain?: string): TemplateObject[] => [
  kubeadmConfigTemplate(name, configSpec),
  vcdMachineTemplate(name, vcdMachineSpec()),
  machineDeployment(name, failureDomain),
];

/** A whole cluster around a VCDCluster spec and the control plane's and workers' KubeadmConfig specs. */
const kubeadmCluster = (
  spec: Record<string, unknown>,
  cpConfig = controlPlaneConfigSpec(),
  workerPools: TemplateObject[] = workers('${CLUSTER_NAME}-md-0'),
): TemplateObject[] => [
  credentialsSecret(),
  cluster(),
  vcdCluster(spec),
  kubeadmControlPlane(cpConfig),
  vcdMachineTemplate(CP, vcdMachineSpec()),
  ...workerPools,
];

const ignition = { format: 'ignition', ignition: { containerLinuxConfig: { strict: false } } };

export const flavors: Flavor[] = [
  {
    name: '',
    description: 'KubeadmControlPlane + MachineDeployment; an NSX-T ALB load balancer is the endpoint',
    objects: () => kubeadmCluster(vcdClusterSpec()),
  },
  {
    name: 'endpoint',
    description:
      'the endpoint is yours (CONTROL_PLANE_ENDPOINT_IP: a DNS name or VIP you run); no load balancer',
    objects: () => kubeadmCluster(ownEndpoint()),
  },
  {
    name: 'cloud-provider',
    description:
      'the default, plus a ClusterResourceSet giving the VCD CPI and CSI their config maps and token (vcloud-basic-auth)',
    objects: () => [...kubeadmCluster(vcdClusterSpec()), ...cloudProviderObjects()],
  },
  {
    name: 'no-lb',
    description: 'no NSX-T ALB: kube-vip on the control-plane nodes holds CONTROL_PLANE_ENDPOINT_IP',
    objects: () =>
      kubeadmCluster(
        ownEndpoint(),
        controlPlaneConfigSpec({
          files: [
            {
              path: '/etc/kubernetes/manifests/kube-vip.yaml',
              owner: 'root:root',
              permissions: '0644',
              content: kubeVipPod(),
            },
          ],
        }),
      ),
  },
  {
    name: 'ignition',
    description: 'Ignition bootstrap data (Flatcar images; CABPK gate KubeadmBootstrapFormatIgnition)',
    objects: () =>
      kubeadmCluster(
        vcdClusterSpec(),
        controlPlaneConfigSpec(ignition),
        workers('${CLUSTER_NAME}-md-0', workerConfigSpec(ignition)),
      ),
  },
  {
    name: 'multi-zone',
    description: 'two failure domains (a VDC and network each); control planes spread, a pool per zone',
    objects: () =>
      kubeadmCluster(
        {
          ...vcdClusterSpec(),
          multiZoneSpec: {
            zones: [1, 2].map((n) => ({
              name: `\${VCD_ZONE_${n}:=zone-${n}}`,
              ovdc: `\${VCD_ZONE_${n}_ORGVDC}`,
              ovdcNetworkName: `\${VCD_ZONE_${n}_ORGVDC_NETWORK}`,
              controlPlaneZone: true,
            })),
          },
        },
        controlPlaneConfigSpec(),
        [1, 2].flatMap((n) =>
          workers(`\${CLUSTER_NAME}-md-${n - 1}`, workerConfigSpec(), `\${VCD_ZONE_${n}:=zone-${n}}`),
        ),
      ),
  },
  {
    name: 'topology',
    description: `a Cluster of the ClusterClass ${CLUSTER_CLASS_NAME} (clusterctl adds the class from clusterclass-${CLUSTER_CLASS_NAME}.yaml)`,
    objects: () => [
      credentialsSecret(`\${${CREDENTIALS_SECRET_VARIABLE}:=vcd-credentials}`),
      topologyCluster(),
    ],
  },
];

/** The ClusterClasses the repository ships, by name (`clusterclass-<name>.yaml`). */
export const clusterClasses: Record<string, () => TemplateObject[]> = {
  [CLUSTER_CLASS_NAME]: clusterClassObjects,
};
