/** What the request bodies the simulator reads may contain (the parts of VCD's schema it checks). */
import { NS } from './ns.js';
import type { Spec } from './parse.js';

const T: Spec = {};
const OPEN: Spec = { open: true };
/** OVF's elements: `ovf:Info` of every section, the OVF sections themselves. */
const OVF_T: Spec = { ns: NS.ovf };
const OVF_OPEN: Spec = { ns: NS.ovf, open: true };
const REF: Spec = { attrs: ['href', 'id', 'name', 'type'] };
const LINK: Spec = { attrs: ['rel', 'href', 'id', 'name', 'type'] };
const texts = (...names: string[]): Record<string, Spec> => Object.fromEntries(names.map((n) => [n, T]));

/** `NetworkConnectionSection` (PUT, and inside compose/recompose and reconfigureVm). */
export const NETWORK_CONNECTION_SECTION: Spec = {
  attrs: ['href'],
  children: {
    Info: OVF_T,
    PrimaryNetworkConnectionIndex: T,
    NetworkConnection: {
      attrs: ['network', 'needsCustomization'],
      children: texts(
        'NetworkConnectionIndex',
        'IpAddress',
        'IpType',
        'SecondaryIpAddress',
        'SecondaryIpType',
        'ExternalIpAddress',
        'IsConnected',
        'MACAddress',
        'IpAddressAllocationMode',
        'SecondaryIpAddressAllocationMode',
        'NetworkAdapterType',
      ),
    },
    Link: LINK,
  },
};

/** `GuestCustomizationSection`. */
export const GUEST_CUSTOMIZATION_SECTION: Spec = {
  attrs: ['href'],
  children: {
    Info: OVF_T,
    ...texts(
      'Enabled',
      'ChangeSid',
      'VirtualMachineId',
      'JoinDomainEnabled',
      'UseOrgSettings',
      'DomainName',
      'DomainUserName',
      'DomainUserPassword',
      'MachineObjectOU',
      'AdminPasswordEnabled',
      'AdminPasswordAuto',
      'AdminPassword',
      'AdminAutoLogonEnabled',
      'AdminAutoLogonCount',
      'ResetPasswordRequired',
      'CustomizationScript',
      'ComputerName',
    ),
    Link: LINK,
  },
};

/** `ovf:ProductSection`. */
export const PRODUCT_SECTION: Spec = {
  ns: NS.ovf,
  attrs: ['ovf:class', 'ovf:instance'],
  children: {
    ...Object.fromEntries(
      ['Info', 'Product', 'Vendor', 'Version', 'FullVersion', 'Category'].map((n) => [n, OVF_T]),
    ),
    Property: {
      ns: NS.ovf,
      attrs: ['ovf:key', 'ovf:type', 'ovf:value', 'ovf:userConfigurable', 'ovf:qualifiers', 'ovf:password'],
      children: { Label: OVF_T, Description: OVF_T, Value: OVF_OPEN },
    },
  },
};

/** `ProductSectionList` (PUT …/productSections). */
export const PRODUCT_SECTION_LIST: Spec = {
  attrs: ['href'],
  children: { Link: LINK, ProductSection: PRODUCT_SECTION },
};

const DISK_SETTINGS: Spec = {
  children: {
    ...texts(
      'DiskId',
      'SizeMb',
      'UnitNumber',
      'BusNumber',
      'AdapterType',
      'ThinProvisioned',
      'overrideVmDefault',
      'iops',
      'VirtualQuantity',
      'VirtualQuantityUnit',
      'resizable',
      'encrypted',
      'shareable',
      'sharingType',
    ),
    StorageProfile: REF,
    Disk: REF,
  },
};

/** `VmSpecSection`: sizing and disks. */
export const VM_SPEC_SECTION: Spec = {
  attrs: ['Modified'],
  children: {
    Info: OVF_T,
    ...texts(
      'OsType',
      'NumCpus',
      'NumCoresPerSocket',
      'VmToolsVersion',
      'VirtualCpuType',
      'TimeSyncWithHost',
    ),
    CpuResourceMhz: OPEN,
    MemoryResourceMb: { children: texts('Configured', 'Reservation', 'Limit', 'SharesLevel', 'Shares') },
    DiskSection: { children: { DiskSettings: DISK_SETTINGS } },
    HardwareVersion: REF,
  },
};

/** `ComputePolicy`: sizing and placement policy references. */
export const COMPUTE_POLICY: Spec = {
  children: {
    VmPlacementPolicy: REF,
    VmPlacementPolicyFinal: T,
    VmSizingPolicy: REF,
    VmSizingPolicyFinal: T,
  },
};

/** `ovf:VirtualHardwareSection`: items pass, `vmw:ExtraConfig` is read. */
export const VIRTUAL_HARDWARE_SECTION: Spec = {
  ns: NS.ovf,
  attrs: ['ovf:transport', 'href'],
  children: {
    Info: OVF_T,
    System: OVF_OPEN,
    Item: OVF_OPEN,
    ExtraConfig: { ns: NS.vmw, attrs: ['vmw:key', 'vmw:value'] },
    Link: LINK,
  },
};

/** A vApp's `NetworkConfigSection`. */
export const NETWORK_CONFIG_SECTION: Spec = {
  attrs: ['href'],
  children: {
    Info: OVF_T,
    NetworkConfig: {
      attrs: ['networkName', 'href', 'id'],
      children: {
        Link: LINK,
        Description: T,
        Configuration: {
          // In the schema's order; the SDK writes BackwardCompatibilityMode in every vApp network.
          children: {
            BackwardCompatibilityMode: T,
            IpScopes: OPEN,
            ParentNetwork: REF,
            FenceMode: T,
            RetainNetInfoAcrossDeployments: T,
            Features: OPEN,
            SyslogServerSettings: OPEN,
            RouterInfo: OPEN,
            SubInterface: T,
            DistributedInterface: T,
            GuestVlanAllowed: T,
            DualStackNetwork: T,
          },
        },
        IsDeployed: T,
      },
    },
    Link: LINK,
  },
};

const SOURCED_ITEM: Spec = {
  attrs: ['sourceDelete'],
  children: {
    Source: REF,
    VmGeneralParams: { children: texts('Name', 'Description', 'NeedsCustomization', 'RegenerateBiosUuid') },
    VAppScopedLocalId: T,
    InstantiationParams: {
      children: {
        NetworkConnectionSection: NETWORK_CONNECTION_SECTION,
        GuestCustomizationSection: GUEST_CUSTOMIZATION_SECTION,
        VmSpecSection: VM_SPEC_SECTION,
        ProductSection: PRODUCT_SECTION,
        VirtualHardwareSection: VIRTUAL_HARDWARE_SECTION,
      },
    },
    NetworkAssignment: { attrs: ['innerNetwork', 'containerNetwork'] },
    StorageProfile: REF,
    LocalityParams: OPEN,
    ComputePolicy: COMPUTE_POLICY,
    VmCapabilities: OPEN,
  },
};

const VAPP_PARAMS_CHILDREN: Record<string, Spec> = {
  Description: T,
  VAppParent: REF,
  InstantiationParams: {
    children: {
      NetworkConfigSection: NETWORK_CONFIG_SECTION,
      LeaseSettingsSection: OPEN,
      StartupSection: OVF_OPEN,
    },
  },
  SourcedItem: SOURCED_ITEM,
  AllEULAsAccepted: T,
};

/** `ComposeVAppParams`. */
export const COMPOSE_VAPP_PARAMS: Spec = {
  attrs: ['name', 'deploy', 'powerOn', 'linkedClone'],
  children: VAPP_PARAMS_CHILDREN,
};

/** `RecomposeVAppParams` (adds DeleteItem). */
export const RECOMPOSE_VAPP_PARAMS: Spec = {
  attrs: ['name', 'deploy', 'powerOn', 'linkedClone'],
  children: { ...VAPP_PARAMS_CHILDREN, DeleteItem: REF },
};

/** `UndeployVAppParams`. */
export const UNDEPLOY_VAPP_PARAMS: Spec = { children: { UndeployPowerAction: T } };

/** `DeployVAppParams`. */
export const DEPLOY_VAPP_PARAMS: Spec = {
  attrs: ['powerOn', 'deploymentLeaseSeconds', 'forceCustomization'],
};

/** `Vm` as re-sent to `reconfigureVm`: the sections the simulator changes are checked, the rest passed. */
export const VM: Spec = {
  attrs: [
    'needsCustomization',
    'nestedHypervisorEnabled',
    'deployed',
    'status',
    'name',
    'id',
    'href',
    'goldMaster',
  ],
  children: {
    Link: LINK,
    Description: T,
    Tasks: OPEN,
    VAppParent: REF,
    VirtualHardwareSection: VIRTUAL_HARDWARE_SECTION,
    OperatingSystemSection: OVF_OPEN,
    NetworkConnectionSection: NETWORK_CONNECTION_SECTION,
    GuestCustomizationSection: GUEST_CUSTOMIZATION_SECTION,
    ProductSection: PRODUCT_SECTION,
    RuntimeInfoSection: OPEN,
    SnapshotSection: OPEN,
    VmSpecSection: VM_SPEC_SECTION,
    DateCreated: T,
    VAppScopedLocalId: T,
    Environment: { ns: NS.ovfenv, open: true },
    VmCapabilities: OPEN,
    StorageProfile: REF,
    ComputePolicy: COMPUTE_POLICY,
    BootOptions: OPEN,
    MediaSection: OPEN,
  },
};

/** `MetadataValue` (PUT …/metadata/{key}). */
export const METADATA_VALUE: Spec = {
  children: { Link: LINK, Domain: { attrs: ['visibility'] }, TypedValue: { children: { Value: T } } },
};

/** `VmAffinityRule` (POST to a VDC's rules, PUT to a rule). */
export const VM_AFFINITY_RULE: Spec = {
  attrs: ['href', 'id', 'name', 'type', 'OperationKey'],
  children: {
    Link: LINK,
    Name: T,
    IsEnabled: T,
    IsMandatory: T,
    Polarity: T,
    VmReferences: { attrs: ['href', 'type'], children: { Link: LINK, VmReference: REF } },
    VCloudExtension: OPEN,
  },
};

/** `DiskCreateParams`: the disk (name, size in bytes or MB, bus) and its storage profile. */
export const DISK_CREATE_PARAMS: Spec = {
  children: {
    Disk: {
      attrs: ['name', 'size', 'sizeMb', 'busType', 'busSubType', 'sharingType', 'encrypted'],
      children: { Description: T, StorageProfile: REF, Owner: OPEN, Iops: T },
    },
    Locality: REF,
    VdcStorageProfile: REF,
  },
};

/** `DiskAttachOrDetachParams`: the disk, and where on the VM's bus it goes. */
export const DISK_ATTACH_OR_DETACH_PARAMS: Spec = {
  children: { Disk: REF, BusNumber: T, UnitNumber: T },
};
