/**
 * The VM's ExtraConfig keys that carry Cluster API's bootstrap data to the guest, passed VERBATIM:
 * the Secret's `value` bytes, base64 as the Secret stores them, nothing merged in (#485); gzip'd
 * first (`gzip+base64`, which cloud-init's VMware datasource and Ignition both read) only when the
 * plain base64 would not fit one guestinfo value, and refused when even that does not fit. Beside
 * it `guestinfo.metadata` (instance-id, local-hostname, network) so cloud-init picks its VMware
 * datasource and keeps the VM's addressing, every NIC's, across reboots (#302, #506).
 */
import { gzipSync } from 'node:zlib';
import type { GuestNic } from './decide/nics.js';

/** The bootstrap data formats CABPK writes in the Secret's `format` key. */
export type BootstrapFormat = 'cloud-config' | 'ignition';

/** The bootstrap Secret as the contract gives it. */
export interface BootstrapData {
  /** `data.value` of the Secret: base64 of the bootstrap bytes. */
  valueBase64: string;
  /** `format` (absent means cloud-config, as the contract guarantees only `value`). */
  format: BootstrapFormat;
  /** The value as it goes in guestinfo (see {@link encodeBootstrap}). */
  encoded: EncodedBootstrap;
}

/**
 * The most one guestinfo value may hold: 64 KiB (open-vm-tools' guest message limit; the whole
 * VMX file, all keys together, is capped at 1 MiB by default).
 */
export const GUESTINFO_VALUE_LIMIT = 65_536;

/** Bootstrap data as it goes in its guestinfo key, and the `.encoding` key's value. */
export interface EncodedBootstrap {
  value: string;
  encoding: 'base64' | 'gzip+base64';
}

/**
 * The guestinfo form of bootstrap data: the Secret's base64 as it is when it fits one value,
 * else gzip+base64 of its bytes; an error saying the sizes when even that does not fit. Pure.
 */
export function encodeBootstrap(valueBase64: string): EncodedBootstrap | { error: string } {
  if (valueBase64.length <= GUESTINFO_VALUE_LIMIT) return { value: valueBase64, encoding: 'base64' };
  const bytes = Buffer.from(valueBase64, 'base64');
  const packed = gzipSync(bytes, { level: 9 }).toString('base64');
  if (packed.length <= GUESTINFO_VALUE_LIMIT) return { value: packed, encoding: 'gzip+base64' };
  return {
    error:
      `bootstrap data of ${bytes.length} bytes is ${packed.length} bytes as gzip+base64, over the ` +
      `${GUESTINFO_VALUE_LIMIT}-byte limit of one guestinfo value`,
  };
}

/** What the guest is told about itself. */
export interface GuestIdentity {
  instanceId: string;
  hostname: string;
  /** Every NIC of the VM (see `guestNics`); none: eth0 by DHCP. */
  nics?: GuestNic[];
}

/** Reads the `format` key of a bootstrap Secret; `undefined` when it names an unknown format. */
export function bootstrapFormat(formatBase64: string | undefined): BootstrapFormat | undefined {
  if (formatBase64 === undefined) return 'cloud-config';
  const format = Buffer.from(formatBase64, 'base64').toString('utf8').trim();
  return format === 'cloud-config' || format === 'ignition' ? format : undefined;
}

/** One NIC in cloud-init's network config v2: matched by MAC and named, static or DHCP. */
function ethernet(nic: GuestNic): Record<string, unknown> {
  const match = nic.mac ? { match: { macaddress: nic.mac.toLowerCase() }, 'set-name': nic.name } : {};
  const a = nic.address;
  if (!a) return { ...match, dhcp4: true };
  return {
    ...match,
    dhcp4: false,
    addresses: [`${a.ip}/${a.prefixLength}`],
    // One default route: the primary NIC's; the others reach their own subnets only.
    ...(nic.primary && a.gateway ? { routes: [{ to: 'default', via: a.gateway }] } : {}),
    ...(nic.dns?.length ? { nameservers: { addresses: nic.dns } } : {}),
  };
}

/** cloud-init's network config (version 2): every NIC of the VM. */
export function networkConfig(nics: GuestNic[]): { version: 2; ethernets: Record<string, unknown> } {
  if (nics.length === 0) return { version: 2, ethernets: { eth0: { dhcp4: true } } };
  return { version: 2, ethernets: Object.fromEntries(nics.map((n) => [n.name, ethernet(n)])) };
}

/** cloud-init's instance metadata as JSON (a subset of YAML, which it reads). */
export function metadataFor(identity: GuestIdentity): string {
  return JSON.stringify({
    'instance-id': identity.instanceId,
    'local-hostname': identity.hostname,
    network: networkConfig(identity.nics ?? []),
  });
}

/** Every ExtraConfig key the VM must carry before its first power-on. */
export function guestinfoFor(bootstrap: BootstrapData, identity: GuestIdentity): Record<string, string> {
  const { value, encoding } = bootstrap.encoded;
  const data: Record<string, string> =
    bootstrap.format === 'ignition'
      ? { 'guestinfo.ignition.config.data': value, 'guestinfo.ignition.config.data.encoding': encoding }
      : { 'guestinfo.userdata': value, 'guestinfo.userdata.encoding': encoding };
  return {
    ...data,
    'guestinfo.metadata': Buffer.from(metadataFor(identity)).toString('base64'),
    'guestinfo.metadata.encoding': 'base64',
    // Disks get stable serial numbers (CSI drivers find them by it).
    'disk.enableUUID': '1',
  };
}
