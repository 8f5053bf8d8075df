/** What the request bodies the simulator reads may contain (the parts of VCD's schema it checks). */
import type { Spec } from './parse.js';

const T: Spec = {};
const OPEN: Spec = { open: true };
const REF: Spec = { attrs: ['href', 'id', 'name', 'type'] };
const LINK: Spec = { attrs: ['rel', 'href', 'id', 'name', 'type'] };
const texts = (...names: string[]): Record<string, Spec> => Object.fromEntries(names.map((n) => [n, T]));

export const NETWORK_CONNECTION_SECTION: Spec = {
  attrs: ['href'],
  children: {
    Info: T,
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

export const GUEST_CUSTOMIZATION_SECTION: Spec = {
  attrs: ['href'],
  children: {
    ...texts(
      'Info',
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

export const PRODUCT_SECTION: Spec = {
  attrs: ['class', 'instance'],
  children: {
    ...texts('Info', 'Product', 'Vendor', 'Version', 'FullVersion', 'Category'),
    Property: {
      attrs: ['key', 'type', 'value', 'userConfigurable', 'qualifiers', 'password'],
      children: { Label: T, Description: T, Value: OPEN },
    },
  },
};

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

export const VM_SPEC_SECTION: Spec = {
  attrs: ['Modified'],
  children: {
    ...texts(
      'Info',
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

export const COMPUTE_POLICY: Spec = {
  children: {
    VmPlacementPolicy: REF,
    VmPlacementPolicyFinal: T,
    VmSizingPolicy: REF,
    VmSizingPolicyFinal: T,
  },
};

export const VIRTUAL_HARDWARE_SECTION: Spec = {
  attrs: ['transport', 'href'],
  children: {
    Info: T,
    System: OPEN,
    Item: OPEN,
    ExtraConfig: { attrs: ['key', 'value'] },
    Link: LINK,
  },
};

export const NETWORK_CONFIG_SECTION: Spec = {
  attrs: ['href'],
  children: {
    Info: T,
    NetworkConfig: {
      attrs: ['networkName'],
      children: {
        Description: T,
        Configuration: {
          children: {
            ParentNetwork: REF,
            FenceMode: T,
            RetainNetInfoAcrossDeployments: T,
            IpScopes: OPEN,
            Features: OPEN,
            GuestVlanAllowed: T,
            DualStackNetwork: T,
          },
        },
        IsDeployed: T,
        Link: LINK,
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
      StartupSection: OPEN,
    },
  },
  SourcedItem: SOURCED_ITEM,
  AllEULAsAccepted: T,
};

export const COMPOSE_VAPP_PARAMS: Spec = {
  attrs: ['name', 'deploy', 'powerOn', 'linkedClone'],
  children: VAPP_PARAMS_CHILDREN,
};

export const RECOMPOSE_VAPP_PARAMS: Spec = {
  attrs: ['name', 'deploy', 'powerOn', 'linkedClone'],
  children: { ...VAPP_PARAMS_CHILDREN, DeleteItem: REF },
};

export const UNDEPLOY_VAPP_PARAMS: Spec = { children: { UndeployPowerAction: T } };

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
    OperatingSystemSection: OPEN,
    NetworkConnectionSection: NETWORK_CONNECTION_SECTION,
    GuestCustomizationSection: GUEST_CUSTOMIZATION_SECTION,
    ProductSection: PRODUCT_SECTION,
    RuntimeInfoSection: OPEN,
    SnapshotSection: OPEN,
    VmSpecSection: VM_SPEC_SECTION,
    DateCreated: T,
    VAppScopedLocalId: T,
    Environment: OPEN,
    VmCapabilities: OPEN,
    StorageProfile: REF,
    ComputePolicy: COMPUTE_POLICY,
    BootOptions: OPEN,
    MediaSection: OPEN,
  },
};

export const METADATA_VALUE: Spec = {
  children: { Link: LINK, Domain: { attrs: ['visibility'] }, TypedValue: { children: { Value: T } } },
};
