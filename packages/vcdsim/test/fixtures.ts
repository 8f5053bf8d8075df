/** Request bodies as a client written from VCD's documentation sends them. */
export const NS =
  'xmlns="http://www.vmware.com/vcloud/v1.5" xmlns:ovf="http://schemas.dmtf.org/ovf/envelope/1" xmlns:vmw="http://www.vmware.com/schema/ovf"';

export function composeParams(name: string, networkHref: string, networkName = 'net-a'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<ComposeVAppParams ${NS} name="${name}" deploy="false" powerOn="false">
  <Description>test vApp</Description>
  <InstantiationParams>
    <NetworkConfigSection>
      <ovf:Info>Networks</ovf:Info>
      <NetworkConfig networkName="${networkName}">
        <Configuration><ParentNetwork href="${networkHref}"/><FenceMode>bridged</FenceMode></Configuration>
      </NetworkConfig>
    </NetworkConfigSection>
  </InstantiationParams>
  <AllEULAsAccepted>true</AllEULAsAccepted>
</ComposeVAppParams>`;
}

export interface VmItem {
  templateVmHref: string;
  name: string;
  network?: string;
  sizingPolicyUrn?: string;
  placementPolicyUrn?: string;
  storageProfileHref?: string;
  diskMb?: number;
}

export function recomposeParams(items: VmItem[]): string {
  const item = (i: VmItem) => `
  <SourcedItem>
    <Source href="${i.templateVmHref}"/>
    <VmGeneralParams><Name>${i.name}</Name><NeedsCustomization>true</NeedsCustomization><RegenerateBiosUuid>true</RegenerateBiosUuid></VmGeneralParams>
    <InstantiationParams>
      <NetworkConnectionSection>
        <ovf:Info>NICs</ovf:Info>
        <PrimaryNetworkConnectionIndex>0</PrimaryNetworkConnectionIndex>
        <NetworkConnection network="${i.network ?? 'net-a'}" needsCustomization="true">
          <NetworkConnectionIndex>0</NetworkConnectionIndex>
          <IsConnected>true</IsConnected>
          <IpAddressAllocationMode>POOL</IpAddressAllocationMode>
          <NetworkAdapterType>VMXNET3</NetworkAdapterType>
        </NetworkConnection>
      </NetworkConnectionSection>
      <GuestCustomizationSection>
        <ovf:Info>Guest</ovf:Info>
        <Enabled>true</Enabled>
        <AdminPasswordEnabled>true</AdminPasswordEnabled>
        <AdminPasswordAuto>false</AdminPasswordAuto>
        <AdminPassword>secret</AdminPassword>
        <CustomizationScript>#!/bin/sh&#13;echo hi</CustomizationScript>
        <ComputerName>${i.name}</ComputerName>
      </GuestCustomizationSection>${
        i.diskMb !== undefined
          ? `
      <VmSpecSection Modified="true"><ovf:Info>spec</ovf:Info><DiskSection><DiskSettings><DiskId>2000</DiskId><SizeMb>${i.diskMb}</SizeMb></DiskSettings></DiskSection></VmSpecSection>`
          : ''
      }
    </InstantiationParams>${i.storageProfileHref ? `\n    <StorageProfile href="${i.storageProfileHref}"/>` : ''}${
      i.sizingPolicyUrn || i.placementPolicyUrn
        ? `
    <ComputePolicy>${i.placementPolicyUrn ? `<VmPlacementPolicy href="https://x/cloudapi/1.0.0/vdcComputePolicies/${i.placementPolicyUrn}" id="${i.placementPolicyUrn}"/>` : ''}${
      i.sizingPolicyUrn
        ? `<VmSizingPolicy href="https://x/cloudapi/1.0.0/vdcComputePolicies/${i.sizingPolicyUrn}" id="${i.sizingPolicyUrn}"/>`
        : ''
    }</ComputePolicy>`
        : ''
    }
  </SourcedItem>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<RecomposeVAppParams ${NS}>${items.map(item).join('')}
  <AllEULAsAccepted>true</AllEULAsAccepted>
</RecomposeVAppParams>`;
}

export function reconfigureExtraConfig(name: string, entries: Record<string, string>): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Vm ${NS} name="${name}">
  <ovf:VirtualHardwareSection>
    <ovf:Info>hw</ovf:Info>${Object.entries(entries)
      .map(([k, v]) => `\n    <vmw:ExtraConfig ovf:required="true" vmw:key="${k}" vmw:value="${v}"/>`)
      .join('')}
  </ovf:VirtualHardwareSection>
</Vm>`;
}
