// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VARIABLE} is clusterctl's substitution syntax, meant literally here.
/**
 * The ClusterClass `capvcd` and its templates (VCDClusterTemplate, KubeadmControlPlaneTemplate,
 * VCDMachineTemplates, KubeadmConfigTemplate), and the topology Cluster that uses it. Clusters of
 * the class share a credentials Secret named by VCD_CREDENTIALS_SECRET in their namespace.
 */
import {
  BOOTSTRAP_GROUP,
  CONTROL_PLANE_GROUP,
  cluster,
  controlPlaneConfigSpec,
  INFRA_GROUP,
  kubeadmConfigTemplate,
  meta,
  type TemplateObject,
  vcdClusterSpec,
  vcdMachineSpec,
  vcdMachineTemplate,
  workerConfigSpec,
} from './objects.js';

export const CLUSTER_CLASS_NAME = 'capvcd';
/** The variable naming the class's credentials Secret (default `vcd-credentials`). */
export const CREDENTIALS_SECRET_VARIABLE = 'VCD_CREDENTIALS_SECRET';
const WORKER_CLASS = 'default-worker';
const name = (suffix: string) => `${CLUSTER_CLASS_NAME}-${suffix}`;
const ref = (apiVersion: string, kind: string, n: string) => ({ templateRef: { apiVersion, kind, name: n } });

/** ClusterClass + its five templates. */
export const clusterClassObjects = (): TemplateObject[] => [
  {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'ClusterClass',
    metadata: meta(CLUSTER_CLASS_NAME),
    spec: {
      infrastructure: ref(`${INFRA_GROUP}/v1beta3`, 'VCDClusterTemplate', CLUSTER_CLASS_NAME),
      controlPlane: {
        ...ref(`${CONTROL_PLANE_GROUP}/v1beta2`, 'KubeadmControlPlaneTemplate', name('control-plane')),
        machineInfrastructure: ref(`${INFRA_GROUP}/v1beta3`, 'VCDMachineTemplate', name('control-plane')),
      },
      workers: {
        machineDeployments: [
          {
            class: WORKER_CLASS,
            bootstrap: ref(`${BOOTSTRAP_GROUP}/v1beta2`, 'KubeadmConfigTemplate', name('worker')),
            infrastructure: ref(`${INFRA_GROUP}/v1beta3`, 'VCDMachineTemplate', name('worker')),
          },
        ],
      },
    },
  },
  {
    apiVersion: `${INFRA_GROUP}/v1beta3`,
    kind: 'VCDClusterTemplate',
    metadata: meta(CLUSTER_CLASS_NAME),
    spec: {
      template: {
        spec: {
          ...vcdClusterSpec(),
          userContext: { secretRef: { name: `\${${CREDENTIALS_SECRET_VARIABLE}:=vcd-credentials}` } },
        },
      },
    },
  },
  {
    apiVersion: `${CONTROL_PLANE_GROUP}/v1beta2`,
    kind: 'KubeadmControlPlaneTemplate',
    metadata: meta(name('control-plane')),
    spec: { template: { spec: { kubeadmConfigSpec: controlPlaneConfigSpec() } } },
  },
  vcdMachineTemplate(name('control-plane'), vcdMachineSpec()),
  vcdMachineTemplate(name('worker'), vcdMachineSpec()),
  kubeadmConfigTemplate(name('worker'), workerConfigSpec()),
];

/** A Cluster of the class: one pool of `WORKER_MACHINE_COUNT` workers. */
export const topologyCluster = (): TemplateObject => {
  const base = cluster();
  const { controlPlaneRef: _cp, infrastructureRef: _infra, ...spec } = base.spec as Record<string, unknown>;
  return {
    ...base,
    spec: {
      ...spec,
      topology: {
        classRef: { name: CLUSTER_CLASS_NAME },
        version: '${KUBERNETES_VERSION}',
        controlPlane: { replicas: '${CONTROL_PLANE_MACHINE_COUNT}' },
        workers: {
          machineDeployments: [{ class: WORKER_CLASS, name: 'md-0', replicas: '${WORKER_MACHINE_COUNT}' }],
        },
      },
    },
  };
};
