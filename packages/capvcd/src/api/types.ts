/**
 * The VCDCluster, VCDMachine and template kinds, with the field names CAPVCD users already write,
 * on Cluster API's v1beta2 contract (`status.initialization.provisioned`, `metav1.Condition`s).
 */
import type * as wire from './generated/types.js';

// The kinds' shapes are generated from deploy/crds.yaml (itself written from schema.ts), so the
// schema the API server enforces and the types the reconcilers compile against cannot drift; the
// names below are the ones the code and CAPVCD's users know.
export {
  VCDClusterIdentityType,
  VCDClusterTemplateType,
  VCDClusterType,
  VCDMachineTemplateType,
  VCDMachineType,
} from './generated/types.js';

/** `host:port` of the workload cluster's API server. */
export type APIEndpoint = wire.VCDClusterSpecControlPlaneEndpoint;
/** Where the VCD credentials live: a Secret with `username` + `password`, or `refreshToken`. */
export type UserContext = wire.VCDClusterSpecUserContext;
/** NSX-T ALB settings of the control-plane endpoint. */
export type LoadBalancerConfigSpec = wire.VCDClusterSpecLoadBalancerConfigSpec;
/** One failure domain: a VDC and its network. */
export type Zone = wire.VCDClusterSpecMultiZoneSpecZonesItem;
export type VCDClusterSpec = wire.VCDClusterSpec;
/** A v1beta2 failure domain. */
export type FailureDomain = wire.VCDClusterStatusFailureDomainsItem;
/** A VCD task this object is waiting for; a later reconcile reads it (none waits). */
export type TaskRef = wire.VCDClusterStatusTask;
/** The load balancer as made: names and ids are re-derivable; the ids only save lookups. */
export type LoadBalancerStatus = wire.VCDClusterStatusLoadBalancer;
export type VCDClusterStatus = wire.VCDClusterStatus;
export type VCDCluster = wire.VCDCluster;
export type VCDMachineSpec = wire.VCDMachineSpec;
export type MachineAddress = wire.VCDMachineStatusAddressesItem;
export type VCDMachineStatus = wire.VCDMachineStatus;
export type VCDMachine = wire.VCDMachine;
export type VCDMachineTemplate = wire.VCDMachineTemplate;
export type VCDClusterTemplate = wire.VCDClusterTemplate;
/** A Secret shared across namespaces, and the namespaces allowed to name it (cluster-scoped). */
export type VCDClusterIdentity = wire.VCDClusterIdentity;
