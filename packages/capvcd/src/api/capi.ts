/**
 * The parts of Cluster API's own v1beta2 kinds this provider reads: Cluster (pause, endpoint,
 * infrastructure provisioned) and Machine (bootstrap data, failure domain, control-plane role).
 */
import { defineResource, type KubeObject } from '@capstan/runtime';
import { CAPI_GROUP, CAPI_VERSION } from './keys.js';
import type { APIEndpoint } from './types.js';

/** A v1beta2 reference: group and kind, the version resolved from the CRD's contract label. */
export interface ContractReference {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface Cluster extends KubeObject {
  spec?: {
    paused?: boolean;
    controlPlaneEndpoint?: APIEndpoint;
    infrastructureRef?: ContractReference;
    controlPlaneRef?: ContractReference;
  };
  status?: { initialization?: { infrastructureProvisioned?: boolean; controlPlaneInitialized?: boolean } };
}

export interface Machine extends KubeObject {
  spec?: {
    clusterName?: string;
    bootstrap?: { dataSecretName?: string };
    infrastructureRef?: ContractReference;
    failureDomain?: string;
    providerID?: string;
  };
  status?: { phase?: string; nodeRef?: { name: string } };
}

const capi = { group: CAPI_GROUP, version: CAPI_VERSION, namespaced: true } as const;
export const ClusterType = defineResource<Cluster>({ ...capi, kind: 'Cluster', plural: 'clusters' });
export const MachineType = defineResource<Machine>({ ...capi, kind: 'Machine', plural: 'machines' });
