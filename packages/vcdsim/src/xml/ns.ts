/** The XML namespaces and media types of VCD's legacy API. */

export const NS = {
  vcloud: 'http://www.vmware.com/vcloud/v1.5',
  ovf: 'http://schemas.dmtf.org/ovf/envelope/1',
  vssd: 'http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_VirtualSystemSettingData',
  rasd: 'http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData',
  vmw: 'http://www.vmware.com/schema/ovf',
  ovfenv: 'http://schemas.dmtf.org/ovf/environment/1',
  vmext: 'http://www.vmware.com/vcloud/extension/v1.5',
  xsi: 'http://www.w3.org/2001/XMLSchema-instance',
  versions: 'http://www.vmware.com/vcloud/versions',
} as const;

/**
 * Namespace declarations put on every root element of the vcloud namespace. `vcloud` is declared
 * as a prefix too: attributes cannot use the default namespace, and VCD qualifies some (e.g.
 * `vcloud:type` on OVF sections).
 */
export const ROOT_NS: Record<string, string> = {
  xmlns: NS.vcloud,
  'xmlns:vcloud': NS.vcloud,
  'xmlns:ovf': NS.ovf,
  'xmlns:vssd': NS.vssd,
  'xmlns:rasd': NS.rasd,
  'xmlns:vmw': NS.vmw,
  'xmlns:ovfenv': NS.ovfenv,
  'xmlns:vmext': NS.vmext,
  'xmlns:xsi': NS.xsi,
};

/** `application/vnd.vmware.vcloud.<kind>+xml`, the media type of a legacy API element. */
export const mediaType = (kind: string): string => `application/vnd.vmware.vcloud.${kind}+xml`;

export const MT = {
  vmAffinityRule: mediaType('vmaffinityrule'),
  vmAffinityRules: mediaType('vmaffinityrules'),
  org: mediaType('org'),
  orgList: mediaType('orgList'),
  vdc: mediaType('vdc'),
  catalog: mediaType('catalog'),
  catalogItem: mediaType('catalogItem'),
  vAppTemplate: mediaType('vAppTemplate'),
  vApp: mediaType('vApp'),
  vm: mediaType('vm'),
  task: mediaType('task'),
  tasksList: mediaType('tasksList'),
  error: mediaType('error'),
  network: mediaType('orgNetwork'),
  orgVdcNetwork: mediaType('orgVdcNetwork'),
  storageProfile: mediaType('vdcStorageProfile'),
  composeVAppParams: mediaType('composeVAppParams'),
  recomposeVAppParams: mediaType('recomposeVAppParams'),
  undeployVAppParams: mediaType('undeployVAppParams'),
  deployVAppParams: mediaType('deployVAppParams'),
  networkConnectionSection: mediaType('networkConnectionSection'),
  networkConfigSection: mediaType('networkConfigSection'),
  guestCustomizationSection: mediaType('guestCustomizationSection'),
  virtualHardwareSection: mediaType('virtualHardwareSection'),
  productSections: mediaType('productSections'),
  metadata: mediaType('metadata'),
  metadataValue: mediaType('metadata.value'),
  records: mediaType('query.records'),
  idrecords: mediaType('query.idrecords'),
  references: mediaType('query.references'),
  queryList: mediaType('query.queryList'),
  session: mediaType('session'),
  leaseSettings: mediaType('leaseSettingsSection'),
  startupSection: mediaType('startupSection'),
  runtimeInfo: mediaType('runtimeInfoSection'),
  vmCapabilities: mediaType('vmCapabilitiesSection'),
  disk: mediaType('disk'),
  diskCreateParams: mediaType('diskCreateParams'),
  diskAttachOrDetachParams: mediaType('diskAttachOrDetachParams'),
  vms: mediaType('vms'),
} as const;
