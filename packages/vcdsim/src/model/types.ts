/** The simulated cloud's objects. Ids are bare UUIDs; URNs and hrefs are derived when rendered. */
import type { IpRange } from './ippool.js';

/** An organization (tenant). */
export interface Org {
  id: string;
  name: string;
  fullName: string;
}

/** A user of an org; logs in as `name@org:password`. */
export interface User {
  id: string;
  name: string;
  orgId: string;
  password: string;
  /** API tokens accepted by `POST /oauth/tenant/{org}/token` as refresh tokens. */
  apiTokens: string[];
}

/** A VDC storage profile (policy) VMs and disks are placed on. */
export interface StorageProfile {
  id: string;
  name: string;
  vdcId: string;
  limitMb: number;
  isDefault: boolean;
}

/** A VDC compute policy: sizing (CPU, memory) or placement (where VMs may run). */
export interface ComputePolicy {
  id: string;
  name: string;
  description: string;
  kind: 'sizing' | 'placement';
  cpuCount?: number;
  coresPerSocket?: number;
  memoryMb?: number;
  /** VDCs the policy is published to. */
  vdcIds: string[];
}

/** An org VDC: where vApps live, with its storage profiles and published compute policies. */
export interface Vdc {
  id: string;
  name: string;
  orgId: string;
  description: string;
  storageProfileIds: string[];
  computePolicyIds: string[];
  defaultComputePolicyId: string;
}

/** An org VDC network with a static IP pool. `allocated` maps an address to the VM holding it. */
export interface Network {
  id: string;
  name: string;
  orgId: string;
  vdcId: string;
  description: string;
  gateway: string;
  prefixLength: number;
  dns1: string;
  dns2: string;
  dnsSuffix: string;
  ipRanges: IpRange[];
  /** The network's DHCP pools (NSX-T network DHCP): DHCP NICs lease from them at boot; none: no DHCP service. */
  dhcpRanges: IpRange[];
  fenceMode: 'natRouted' | 'isolated' | 'bridged';
  edgeGatewayId?: string;
  /**
   * A data center group's network (VCD 10.2+): stretched over every member VDC of its group, so
   * each of them offers it; its owner is the group, not a VDC.
   */
  group?: VdcGroup;
  allocated: Map<string, string>;
}

/** A data center group: org VDCs that share its networks. */
export interface VdcGroup {
  id: string;
  name: string;
  vdcIds: string[];
}

/** An edge gateway uplink: the external subnet and the addresses allocated to the gateway. */
export interface Uplink {
  id: string;
  name: string;
  gateway: string;
  prefixLength: number;
  ipRanges: IpRange[];
  primaryIp: string;
}

/** An NSX-T edge gateway. `used` maps an uplink address to what holds it (category, owner). */
export interface EdgeGateway {
  id: string;
  name: string;
  orgId: string;
  vdcId: string;
  description: string;
  uplink: Uplink;
  /** IP Spaces the gateway allocates from (`usingIpSpace`); its uplink then has no ranges of its own. */
  ipSpaceIds?: string[];
  used: Map<string, { category: string; ownerId: string; ownerName: string }>;
}

/** A service engine group assigned to an edge gateway (NSX-T ALB). */
export interface SegAssignment {
  id: string;
  segId: string;
  segName: string;
  gatewayId: string;
  maxVirtualServices: number;
  minVirtualServices: number;
}

/** A catalog of vApp templates. */
export interface Catalog {
  id: string;
  name: string;
  orgId: string;
  description: string;
  templateIds: string[];
}

/** The single VM of a vApp template, the source of recomposed VMs. */
export interface TemplateVm {
  id: string;
  name: string;
  osType: string;
  cpuCount: number;
  coresPerSocket: number;
  memoryMb: number;
  diskMb: number;
}

/** A vApp template in a catalog (one VM). */
export interface VAppTemplate {
  id: string;
  name: string;
  description: string;
  catalogId: string;
  catalogItemId: string;
  orgId: string;
  vdcId: string;
  storageProfileId: string;
  createdAt: number;
  vm: TemplateVm;
}

/** How a NIC gets its address (VCD `IpAddressAllocationMode`). */
export type AllocationMode = 'POOL' | 'DHCP' | 'MANUAL' | 'NONE';

/** A VM network adapter (a NetworkConnection). */
export interface Nic {
  index: number;
  network: string;
  /** The address the NIC holds; for POOL it is set once the VM has booted. */
  ipAddress?: string;
  /** For MANUAL allocation: the address asked for. */
  requestedIp?: string;
  /** The pool address reserved at power-on; shown as `ipAddress` once the guest has booted. */
  reservedIp?: string;
  macAddress: string;
  allocationMode: AllocationMode;
  adapterType: string;
  connected: boolean;
  needsCustomization: boolean;
}

/** A VM hard disk. */
export interface Disk {
  id: string;
  /** VCD's DiskId within the VM (2000 for the template's, then the next free): stable once given. */
  diskId: number;
  sizeMb: number;
  busNumber: number;
  unitNumber: number;
  adapterType: string;
  storageProfileId: string;
}

/**
 * An independent (named) disk in a VDC: created on its own, attached to at most one VM, and
 * outliving it (the VCD CSI driver's persistent volumes are these).
 */
export interface NamedDisk {
  id: string;
  name: string;
  description: string;
  vdcId: string;
  orgId: string;
  sizeMb: number;
  storageProfileId: string;
  /** 6 SCSI, 5 IDE, 20 NVMe (rasd bus types). */
  busType: number;
  busSubType: string;
  /** The VM it is attached to, if any. */
  attachedVmId?: string;
}

/** A VM's GuestCustomizationSection settings. */
export interface GuestCustomization {
  enabled: boolean;
  changeSid: boolean;
  adminPasswordEnabled: boolean;
  adminPasswordAuto: boolean;
  adminPassword?: string;
  resetPasswordRequired: boolean;
  customizationScript?: string;
  computerName: string;
}

/** An OVF product section property (part of the OVF environment). */
export interface ProductProperty {
  key: string;
  type: string;
  value: string;
  userConfigurable: boolean;
  label?: string;
}

/** An OVF product section. */
export interface ProductSection {
  info: string;
  properties: ProductProperty[];
}

/** A metadata value on a vApp or VM. */
export interface MetadataEntry {
  domain: 'GENERAL' | 'SYSTEM';
  /** Who may see and change it besides the system administrator. */
  visibility: 'READWRITE' | 'READONLY' | 'PRIVATE';
  type: string;
  value: string;
}

/** VM power states (VCD's status integers). */
export const VmStatus = {
  FAILED_CREATION: -1,
  UNRESOLVED: 0,
  RESOLVED: 1,
  DEPLOYED: 2,
  SUSPENDED: 3,
  POWERED_ON: 4,
  POWERED_OFF: 8,
} as const;

/** A VM in a vApp. `status` is VCD's integer (see {@link VmStatus}). */
export interface Vm {
  id: string;
  name: string;
  description: string;
  vappId: string;
  status: number;
  deployed: boolean;
  osType: string;
  cpuCount: number;
  coresPerSocket: number;
  memoryMb: number;
  disks: Disk[];
  nics: Nic[];
  primaryNicIndex: number;
  extraConfig: Map<string, { value: string; required: boolean }>;
  guest: GuestCustomization;
  productSections: ProductSection[];
  metadata: Map<string, MetadataEntry>;
  sizingPolicyId?: string;
  placementPolicyId?: string;
  storageProfileId: string;
  templateId: string;
  needsCustomization: boolean;
  /** VMware Tools report the guest running (after boot). */
  toolsRunning: boolean;
  /** The guest answers on its service ports (decides load balancer member health). */
  serving: boolean;
  /** A hung guest: a shutdown request reaches it (tools run) but it never powers off. */
  guestIgnoresShutdown?: boolean;
  createdAt: number;
}

/** A vApp network, usually bridged to an org VDC network. */
export interface VAppNetwork {
  name: string;
  parentNetworkId?: string;
  fenceMode: 'bridged' | 'natRouted' | 'isolated';
  description: string;
}

/** A vApp: VMs and their vApp networks in a VDC. */
export interface VApp {
  id: string;
  name: string;
  description: string;
  vdcId: string;
  orgId: string;
  ownerName: string;
  status: number;
  deployed: boolean;
  networks: VAppNetwork[];
  vmIds: string[];
  metadata: Map<string, MetadataEntry>;
  createdAt: number;
}

/** An NSX-T ALB pool member. `healthStatus` is derived from the VM behind the address. */
export interface PoolMember {
  ipAddress: string;
  port: number;
  ratio: number;
  enabled: boolean;
}

/** An NSX-T ALB pool on an edge gateway. */
export interface LbPool {
  id: string;
  name: string;
  description: string;
  gatewayId: string;
  orgId: string;
  enabled: boolean;
  defaultPort: number;
  gracefulTimeoutPeriod: number;
  algorithm: string;
  healthMonitors: { type: string }[];
  members: PoolMember[];
  passiveMonitoringEnabled: boolean;
}

/** A port range a virtual service listens on. */
export interface ServicePort {
  portStart: number;
  portEnd: number;
  sslEnabled: boolean;
  tcpUdpProfile: { type: string; systemDefined: boolean };
}

/** An NSX-T ALB virtual service: a VIP and ports in front of a pool. */
export interface VirtualService {
  id: string;
  name: string;
  description: string;
  gatewayId: string;
  orgId: string;
  enabled: boolean;
  virtualIpAddress: string;
  poolId: string;
  segAssignmentId: string;
  servicePorts: ServicePort[];
  applicationProfile: { name: string; type: string; systemDefined: boolean };
}
