/**
 * The VCDCluster, VCDMachine and template kinds, with the field names CAPVCD users already write,
 * on Cluster API's v1beta2 contract (`status.initialization.provisioned`, `metav1.Condition`s).
 */
import type * as wire from './generated/types.js';

// The kinds' shapes are generated from deploy/crds.yaml (itself written from schema.ts), so the
// schema the API server enforces and the types the reconcilers compile against cannot drift; the
// names below are the ones the code and CAPVCD's users know.
// CAPVCD's older versions are served too (generated with their version in their names); the
// controllers work on the hub, v1beta3.
export {
  VCDClusterIdentityType,
  VCDClusterTemplateV1beta3Type as VCDClusterTemplateType,
  VCDClusterV1beta3Type as VCDClusterType,
  VCDMachineTemplateV1beta3Type as VCDMachineTemplateType,
  VCDMachineV1beta3Type as VCDMachineType,
} from './generated/types.js';

/** `host:port` of the workload cluster's API server. */
export type APIEndpoint = wire.VCDClusterV1beta3SpecControlPlaneEndpoint;
/** Where the VCD credentials live: a Secret with `username` + `password`, or `refreshToken`. */
export type UserContext = wire.VCDClusterV1beta3Spec['userContext'];
/** NSX-T ALB settings of the control-plane endpoint. */
export type LoadBalancerConfigSpec = wire.VCDClusterV1beta3SpecLoadBalancerConfigSpec;
/** One failure domain: a VDC and its network. */
export type Zone = wire.VCDClusterV1beta3SpecMultiZoneSpecZonesItem;
export type VCDClusterSpec = wire.VCDClusterV1beta3Spec;
/** A v1beta2 failure domain. */
export type FailureDomain = wire.VCDClusterV1beta3StatusFailureDomainsItem;
/** A VCD task this object is waiting for; a later reconcile reads it (none waits). */
export type TaskRef = wire.VCDClusterV1beta3StatusTask;
/** The load balancer as made: names and ids are re-derivable; the ids only save lookups. */
export type LoadBalancerStatus = wire.VCDClusterV1beta3StatusLoadBalancer;
export type VCDClusterStatus = wire.VCDClusterV1beta3Status;
export type VCDCluster = wire.VCDClusterV1beta3;
export type VCDMachineSpec = wire.VCDMachineV1beta3Spec;
export type MachineAddress = NonNullable<wire.VCDMachineV1beta3Status['addresses']>[number];
export type VCDMachineStatus = wire.VCDMachineV1beta3Status;
export type VCDMachine = wire.VCDMachineV1beta3;
export type VCDMachineTemplate = wire.VCDMachineTemplateV1beta3;
export type VCDClusterTemplate = wire.VCDClusterTemplateV1beta3;
/** A Secret shared across namespaces, and the namespaces allowed to name it (cluster-scoped). */
export type VCDClusterIdentity = wire.VCDClusterIdentity;
