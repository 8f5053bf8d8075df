/**
 * vApps and VMs: reading them into what the decision needs, and the writes (compose, recompose,
 * reconfigure, power, undeploy, delete), each returning its task. Bodies follow VCD's documented
 * namespaces and element order.
 */
import type { ObservedVApp, ObservedVM } from '../decide/machine.js';
import type { IpAllocationMode, ObservedNic } from '../decide/nics.js';
import { readTask, type Task, taskRunning, type VcdClient } from './client.js';
import { readHardware, type SpecChange, vmSpecSectionXml } from './vm-spec.js';
import { childOf, esc, listOf, NS, parseKept, parseXmlKeeping, textOf, type XmlNode } from './xml.js';

/** A VM: what the decision reads, plus what the writes need. */
export interface VmRecord extends ObservedVM {
  href: string;
  /** `urn:vcloud:vm:<uuid>`. */
  id: string;
  mac?: string;
  /** Every NIC, as its NetworkConnection reports it. */
  nics: ObservedNic[];
}

/** The cluster's vApp. */
export interface VAppRecord extends Omit<ObservedVApp, 'vms'> {
  href: string;
  name: string;
  vms: VmRecord[];
  /** The names of its vApp networks (a VM's NICs can only use these). */
  networks: string[];
}

const busy = (node: XmlNode): boolean =>
  listOf(childOf(node, 'Tasks'), 'Task').some((t) => taskRunning(readTask(t)));

/** A VM's parts read from its VirtualHardwareSection and VmSpecSection. */
interface VmDetails {
  extraConfig: Record<string, string>;
  namedDisks: string[] | undefined;
  hardware: VmRecord['hardware'];
}

function readDetails(hardwareSection: XmlNode | undefined, specSection: XmlNode | undefined): VmDetails {
  const extraConfig: Record<string, string> = {};
  for (const item of listOf(hardwareSection, 'ExtraConfig'))
    extraConfig[String(item.key)] = String(item.value ?? '');
  const diskSettings = listOf(childOf(specSection, 'DiskSection'), 'DiskSettings');
  // A named (independent) disk is listed with a reference to it: the CSI driver's volumes.
  const namedDisks = diskSettings.flatMap((d) => {
    const disk = childOf(d, 'Disk');
    return disk ? [String(disk.name ?? disk.href ?? '')] : [];
  });
  return {
    extraConfig,
    namedDisks: namedDisks.length > 0 ? namedDisks : undefined,
    hardware: specSection ? readHardware({ VmSpecSection: specSection }) : undefined,
  };
}

/** The sections a vApp read leaves unparsed until asked for (see {@link getVApp}). */
const KEPT_SECTIONS = ['VirtualHardwareSection', 'VmSpecSection'] as const;
/** A VM's sections nothing reads from a vApp: left unparsed, never looked at. */
const UNREAD_SECTIONS = [
  'OperatingSystemSection',
  'GuestCustomizationSection',
  'ProductSection',
  'RuntimeInfoSection',
  'VmCapabilities',
];
const VAPP_STOP_PATHS = [...KEPT_SECTIONS, ...UNREAD_SECTIONS].map((name) => `*.Vm.${name}`);

/**
 * A VM element. `kept`: its VirtualHardwareSection and VmSpecSection were left unparsed
 * ({@link parseXmlKeeping}); they are then read on the first look at `extraConfig`, `namedDisks`
 * or `hardware`.
 */
function readVm(node: XmlNode, kept = false): VmRecord {
  const nics = childOf(node, 'NetworkConnectionSection');
  const primaryIndex = textOf(nics?.PrimaryNetworkConnectionIndex) ?? '0';
  const connections = listOf(nics, 'NetworkConnection');
  const primary =
    connections.find((c) => textOf(c.NetworkConnectionIndex) === primaryIndex) ?? connections[0];
  const ip = textOf(primary?.IpAddress);
  const mac = textOf(primary?.MACAddress);
  const observedNics = connections.map((c): ObservedNic => {
    const [nicIp, nicMac] = [textOf(c.IpAddress), textOf(c.MACAddress)];
    return {
      index: Number(textOf(c.NetworkConnectionIndex) ?? 0),
      network: String(c.network ?? ''),
      ...(nicMac ? { mac: nicMac } : {}),
      ...(nicIp ? { ip: nicIp } : {}),
    };
  });
  const section = (name: (typeof KEPT_SECTIONS)[number]) =>
    kept ? parseKept(node[name], name) : childOf(node, name);
  let details: VmDetails | undefined;
  const read = () => {
    details ??= readDetails(section('VirtualHardwareSection'), section('VmSpecSection'));
    return details;
  };
  const vm = {
    href: String(node.href),
    id: String(node.id ?? ''),
    name: String(node.name),
    status: Number(node.status ?? 0),
    deployed: String(node.deployed) === 'true',
    busy: busy(node),
    description: textOf(node.Description) ?? '',
    ...(ip ? { ip } : {}),
    ...(mac ? { mac } : {}),
    nics: observedNics,
  };
  // Read on demand: bootstrap data makes a VM's ExtraConfig kilobytes, and a machine reading its
  // cluster's vApp looks only at its own VM's.
  return Object.defineProperties(vm, {
    extraConfig: { enumerable: true, get: () => read().extraConfig },
    namedDisks: { enumerable: true, get: () => read().namedDisks },
    hardware: { enumerable: true, get: () => read().hardware },
  }) as VmRecord;
}

/**
 * Reads a vApp and its VMs (one GET). Every machine of a cluster reads the vApp of all its VMs, so
 * each VM's bulky sections are parsed only when looked at: else N machines read N VMs' each.
 */
export async function getVApp(vcd: VcdClient, href: string): Promise<VAppRecord> {
  const node =
    childOf(await vcd.getXml(href, (text) => parseXmlKeeping(text, VAPP_STOP_PATHS)), 'VApp') ?? {};
  return {
    href: String(node.href ?? href),
    name: String(node.name ?? ''),
    deployed: String(node.deployed) === 'true',
    busy: busy(node),
    description: textOf(node.Description) ?? '',
    vms: listOf(childOf(node, 'Children'), 'Vm').map((vm) => readVm(vm, true)),
    networks: listOf(childOf(node, 'NetworkConfigSection'), 'NetworkConfig').map((n) =>
      String(n.networkName),
    ),
  };
}

/** Reads one VM. */
export async function getVm(vcd: VcdClient, href: string): Promise<VmRecord> {
  return readVm(childOf(await vcd.xml('GET', href), 'Vm') ?? {});
}

const mime = (name: string) => `application/vnd.vmware.vcloud.${name}+xml`;
const ref = (tag: string, href: string, extra = '') => `<${tag} href="${esc(href)}"${extra}/>`;

/** The networks a vApp bridges to (by name and href). */
export interface NetworkRef {
  name: string;
  href: string;
}

/** InstantiationParams bridging the vApp to these org VDC networks (empty for none). */
function bridged(networks: readonly NetworkRef[]): string {
  if (networks.length === 0) return '';
  const configs = networks
    .map(
      (n) =>
        `<NetworkConfig networkName="${esc(n.name)}"><Configuration>${ref('ParentNetwork', n.href)}` +
        '<FenceMode>bridged</FenceMode></Configuration></NetworkConfig>',
    )
    .join('');
  return (
    `<InstantiationParams><NetworkConfigSection><ovf:Info>Networks of the cluster</ovf:Info>${configs}` +
    '</NetworkConfigSection></InstantiationParams>'
  );
}

/** Creates the cluster's (empty) vApp, bridged to its networks. */
export function composeVApp(
  vcd: VcdClient,
  vdcHref: string,
  vapp: { name: string; description: string; networks: NetworkRef[] },
): Promise<Task> {
  const body =
    `<?xml version="1.0" encoding="UTF-8"?><ComposeVAppParams xmlns="${NS.vcloud}" xmlns:ovf="${NS.ovf}" ` +
    `name="${esc(vapp.name)}" deploy="false" powerOn="false"><Description>${esc(vapp.description)}</Description>` +
    `${bridged(vapp.networks)}<AllEULAsAccepted>true</AllEULAsAccepted></ComposeVAppParams>`;
  return vcd.startTask('POST', `${vdcHref}/action/composeVApp`, body, mime('composeVAppParams'));
}

/** What a new VM is made of. */
export interface NewVm {
  name: string;
  description: string;
  templateVmHref: string;
  /** Primary first. */
  networks: string[];
  /** How each NIC (as `networks`) gets its address; absent: POOL. MANUAL carries its address. */
  addressing?: Array<{ mode: IpAllocationMode; ip?: string }>;
  guestCustomization: boolean;
  storageProfileHref?: string;
  sizingPolicy?: { href: string; id: string };
  placementPolicy?: { href: string; id: string };
}

/** One NetworkConnection, children in the schema's order (IpAddress before IsConnected). */
function networkConnection(
  network: string,
  index: number,
  how?: { mode: IpAllocationMode; ip?: string },
): string {
  const mode = how?.mode ?? 'POOL';
  const ip = mode === 'MANUAL' && how?.ip ? `<IpAddress>${esc(how.ip)}</IpAddress>` : '';
  return (
    `<NetworkConnection network="${esc(network)}"><NetworkConnectionIndex>${index}</NetworkConnectionIndex>` +
    `${ip}<IsConnected>true</IsConnected><IpAddressAllocationMode>${mode}</IpAddressAllocationMode>` +
    '<NetworkAdapterType>VMXNET3</NetworkAdapterType></NetworkConnection>'
  );
}

/** One VM's SourcedItem: named by its Source (VCD's name for it) and its general params. */
function sourcedItem(vm: NewVm): string {
  const nics = vm.networks.map((network, i) => networkConnection(network, i, vm.addressing?.[i])).join('');
  const policy = (tag: string, p?: { href: string; id: string }) =>
    p ? `<${tag} href="${esc(p.href)}" id="${esc(p.id)}"/>` : '';
  const compute =
    vm.sizingPolicy || vm.placementPolicy
      ? `<ComputePolicy>${policy('VmPlacementPolicy', vm.placementPolicy)}${policy('VmSizingPolicy', vm.sizingPolicy)}</ComputePolicy>`
      : '';
  return (
    `<SourcedItem>${ref('Source', vm.templateVmHref, ` name="${esc(vm.name)}"`)}` +
    `<VmGeneralParams><Name>${esc(vm.name)}</Name><Description>${esc(vm.description)}</Description>` +
    `<NeedsCustomization>${vm.guestCustomization}</NeedsCustomization><RegenerateBiosUuid>true</RegenerateBiosUuid></VmGeneralParams>` +
    '<InstantiationParams><NetworkConnectionSection><ovf:Info>NICs</ovf:Info>' +
    `<PrimaryNetworkConnectionIndex>0</PrimaryNetworkConnectionIndex>${nics}</NetworkConnectionSection>` +
    `<GuestCustomizationSection><ovf:Info>Guest customization</ovf:Info><Enabled>${vm.guestCustomization}</Enabled>` +
    `<ComputerName>${esc(vm.name)}</ComputerName></GuestCustomizationSection></InstantiationParams>` +
    `${vm.storageProfileHref ? ref('StorageProfile', vm.storageProfileHref) : ''}${compute}</SourcedItem>`
  );
}

/**
 * Adds VMs from templates to the vApp in one recomposeVApp: one SourcedItem each, so one task (and
 * one lock of the vApp) for all. VCD checks every item before it starts the task and refuses the
 * whole request for one bad item. `newVAppNetworks`: networks the VMs use that the vApp does not
 * bridge yet, added by the same call.
 */
export function createVms(
  vcd: VcdClient,
  vappHref: string,
  vms: readonly NewVm[],
  newVAppNetworks: readonly NetworkRef[] = [],
): Promise<Task> {
  const body =
    `<?xml version="1.0" encoding="UTF-8"?><RecomposeVAppParams xmlns="${NS.vcloud}" xmlns:ovf="${NS.ovf}">` +
    `${bridged(newVAppNetworks)}${vms.map(sourcedItem).join('')}` +
    '<AllEULAsAccepted>true</AllEULAsAccepted></RecomposeVAppParams>';
  return vcd.startTask('POST', `${vappHref}/action/recomposeVApp`, body, mime('recomposeVAppParams'));
}

/** Writes ExtraConfig keys (and sizing and disks: see {@link vmSpecSectionXml}) while the VM is off. */
export function configureVm(
  vcd: VcdClient,
  vm: VmRecord,
  extraConfig: Record<string, string>,
  change: SpecChange = {},
): Promise<Task> {
  const keys = Object.entries(extraConfig)
    .map(([k, v]) => `<vmw:ExtraConfig ovf:required="false" vmw:key="${esc(k)}" vmw:value="${esc(v)}"/>`)
    .join('');
  const body =
    `<?xml version="1.0" encoding="UTF-8"?><Vm xmlns="${NS.vcloud}" xmlns:ovf="${NS.ovf}" xmlns:vmw="${NS.vmw}" ` +
    `xmlns:rasd="${NS.rasd}" name="${esc(vm.name)}"><Description>${esc(vm.description)}</Description>` +
    `<ovf:VirtualHardwareSection><ovf:Info>Virtual hardware</ovf:Info>${keys}</ovf:VirtualHardwareSection>` +
    `${vmSpecSectionXml(vm.hardware, change)}</Vm>`;
  return vcd.startTask('POST', `${vm.href}/action/reconfigureVm`, body, mime('vm'));
}

export const powerOn = (vcd: VcdClient, href: string) =>
  vcd.startTask('POST', `${href}/power/action/powerOn`);
export const powerOff = (vcd: VcdClient, href: string) =>
  vcd.startTask('POST', `${href}/power/action/powerOff`);
/** Asks the guest OS to shut down (VMware Tools); the VM stays deployed once it is off. */
export const shutdownGuest = (vcd: VcdClient, href: string) =>
  vcd.startTask('POST', `${href}/power/action/shutdown`);

/** Undeploys a VM or vApp, powering it off. */
export function undeploy(vcd: VcdClient, href: string): Promise<Task> {
  const body =
    `<?xml version="1.0" encoding="UTF-8"?><UndeployVAppParams xmlns="${NS.vcloud}">` +
    '<UndeployPowerAction>powerOff</UndeployPowerAction></UndeployVAppParams>';
  return vcd.startTask('POST', `${href}/action/undeploy`, body, mime('undeployVAppParams'));
}

export const remove = (vcd: VcdClient, href: string) => vcd.startTask('DELETE', href);
