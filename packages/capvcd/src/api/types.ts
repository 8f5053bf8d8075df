/**
 * The VCDCluster, VCDMachine and template kinds, with the field names CAPVCD users already write,
 * on Cluster API's v1beta2 contract (`status.initialization.provisioned`, `metav1.Condition`s).
 */
import { type Condition, defineResource, type KubeObject } from '@capstan/runtime';
import { GROUP, VERSION } from './keys.js';

/** `host:port` of the workload cluster's API server. */
export interface APIEndpoint {
  host: string;
  port: number;
}

/** Where the VCD credentials live: a Secret with `username` + `password`, or `refreshToken`. */
export interface UserContext {
  secretRef: { name: string; namespace?: string };
}

/** NSX-T ALB settings of the control-plane endpoint. */
export interface LoadBalancerConfigSpec {
  /** Allocate the VIP inside this CIDR of the edge gateway's uplink. */
  vipSubnet?: string;
  /** Accepted for compatibility; only shared-IP (false) is implemented. */
  useOneArm?: boolean;
}

/** One failure domain: a VDC and its network. */
export interface Zone {
  name: string;
  ovdc: string;
  ovdcNetworkName: string;
  controlPlaneZone?: boolean;
}

export interface VCDClusterSpec {
  controlPlaneEndpoint?: APIEndpoint;
  /** The VCD URL, `https://vcd.example.com`. */
  site: string;
  org: string;
  ovdc: string;
  ovdcNetwork: string;
  userContext: UserContext;
  loadBalancerConfigSpec?: LoadBalancerConfigSpec;
  multiZoneSpec?: { zones?: Zone[] };
  /** Skip TLS verification of the site (a TLSVerified=False condition says so). */
  insecureSkipTLSVerify?: boolean;
}

/** A v1beta2 failure domain. */
export interface FailureDomain {
  name: string;
  controlPlane?: boolean;
  attributes?: Record<string, string>;
}

/** A VCD task this object is waiting for; a later reconcile reads it (none waits). */
export interface TaskRef {
  href: string;
  /** What the task does, in the decision's words (`CreateVM`, `PowerOn`, ...). */
  operation: string;
  startedAt: string;
}

/** The load balancer as made: names and ids are re-derivable; the ids only save lookups. */
export interface LoadBalancerStatus {
  vip?: string;
  poolId?: string;
  virtualServiceId?: string;
  members?: string[];
}

export interface VCDClusterStatus {
  initialization?: { provisioned?: boolean };
  /** v1beta1 contract, while it lasts. */
  ready?: boolean;
  conditions?: Condition[];
  failureDomains?: FailureDomain[];
  task?: TaskRef;
  loadBalancer?: LoadBalancerStatus;
  observedGeneration?: number;
}

export interface VCDCluster extends KubeObject {
  spec: VCDClusterSpec;
  status?: VCDClusterStatus;
}

export interface VCDMachineSpec {
  providerID?: string;
  catalog: string;
  template: string;
  sizingPolicy?: string;
  placementPolicy?: string;
  storageProfile?: string;
  /** Bytes, as a Kubernetes quantity (`20Gi`). */
  diskSize?: string | number;
  extraOvdcNetworks?: string[];
  /** `{{ .machine.name }}`, `{{ .vcdMachine.name }}`, `{{ .cluster.name }}` and literal text. */
  vmNamingTemplate?: string;
  failureDomain?: string;
  /** VCD guest customization; off by default, since it fights cloud-init (#302, #506). */
  enableGuestCustomization?: boolean;
}

export interface MachineAddress {
  type: 'Hostname' | 'ExternalIP' | 'InternalIP' | 'ExternalDNS' | 'InternalDNS';
  address: string;
}

export interface VCDMachineStatus {
  initialization?: { provisioned?: boolean };
  ready?: boolean;
  addresses?: MachineAddress[];
  conditions?: Condition[];
  failureDomain?: string;
  /** The VM's name in VCD (re-derivable from spec and names). */
  vmName?: string;
  task?: TaskRef;
  observedGeneration?: number;
}

export interface VCDMachine extends KubeObject {
  spec: VCDMachineSpec;
  status?: VCDMachineStatus;
}

export interface VCDMachineTemplate extends KubeObject {
  spec: {
    template: {
      metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
      spec: VCDMachineSpec;
    };
  };
}

export interface VCDClusterTemplate extends KubeObject {
  spec: { template: { spec: VCDClusterSpec } };
}

const ours = { group: GROUP, version: VERSION, namespaced: true } as const;

export const VCDClusterType = defineResource<VCDCluster>({
  ...ours,
  kind: 'VCDCluster',
  plural: 'vcdclusters',
});
export const VCDMachineType = defineResource<VCDMachine>({
  ...ours,
  kind: 'VCDMachine',
  plural: 'vcdmachines',
});
export const VCDMachineTemplateType = defineResource<VCDMachineTemplate>({
  ...ours,
  kind: 'VCDMachineTemplate',
  plural: 'vcdmachinetemplates',
});
export const VCDClusterTemplateType = defineResource<VCDClusterTemplate>({
  ...ours,
  kind: 'VCDClusterTemplate',
  plural: 'vcdclustertemplates',
});
