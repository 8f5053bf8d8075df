/** Cluster API kinds the tests read (beyond those the provider declares). */
import { defineResource, type KubeObject } from '@capstan/runtime';

export const MachineDeploymentType = defineResource<KubeObject & { spec: { replicas: number } }>({
  group: 'cluster.x-k8s.io',
  version: 'v1beta2',
  kind: 'MachineDeployment',
  plural: 'machinedeployments',
  namespaced: true,
});
