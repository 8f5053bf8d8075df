/**
 * What the machine reconciler reads besides its own objects: the cluster's vApp in VCD, the
 * bootstrap Secret, and the guestinfo the VM must carry (which needs the VM's id and NIC).
 */
import type { Client } from '@capstan/runtime';
import { Secret } from '@capstan/runtime/client';
import type { Machine } from '../api/capi.js';
import type { VCDCluster } from '../api/types.js';
import { guestNics, type NetworkAddressing, type NicIntent } from '../decide/nics.js';
import { type BootstrapData, bootstrapFormat, encodeBootstrap, guestinfoFor } from '../guestinfo.js';
import { getOrUndefined, NotReady } from '../scope.js';
import { type TakeoverMarkers, viewTakenOver } from '../takeover.js';
import type { Connection } from '../vcd/connections.js';
import { VcdError } from '../vcd/errors.js';
import { getVApp, type VAppRecord, type VmRecord } from '../vcd/vapp.js';
import type { AddressedNics } from './addresses.js';

/** A VCDCluster's takeover view of its vApp (see {@link viewTakenOver}). */
export interface TakeoverView {
  vcdCluster: VCDCluster;
  markers: TakeoverMarkers;
}

/**
 * The cluster's vApp in the VDC, or undefined (a cached href VCD no longer knows is looked up
 * again); with `takeover`, as that VCDCluster's takeover sees it. `read` reads it (by default one
 * GET; a machine may be given a sibling's read, see `vapp-reads.ts`).
 */
export async function observeVApp(
  connection: Connection,
  ovdc: string,
  name: string,
  takeover?: TakeoverView,
  read: () => Promise<VAppRecord | undefined> = () => readVApp(connection, ovdc, name),
): Promise<VAppRecord | undefined> {
  const vapp = await read();
  if (!vapp || !takeover) return vapp;
  return viewTakenOver(connection, takeover.vcdCluster, vapp, takeover.markers);
}

/** The vApp named `name` in the VDC (one GET), or undefined. */
export async function readVApp(
  connection: Connection,
  ovdc: string,
  name: string,
): Promise<VAppRecord | undefined> {
  const href = await connection.directory.vappHref(ovdc, name);
  if (!href) return undefined;
  try {
    return await getVApp(connection.vcd, href);
  } catch (err) {
    if (!(err instanceof VcdError && err.notFound)) throw err;
    const again = await connection.directory.vappHref(ovdc, name, { fresh: true });
    return again ? getVApp(connection.vcd, again) : undefined;
  }
}

/**
 * The Machine's bootstrap data, and its guestinfo form. @throws NotReady while it is missing, of an
 * unknown format, or too large for guestinfo even gzip'd (`BootstrapDataTooLarge`).
 */
export async function readBootstrap(
  client: Client,
  namespace: string,
  machine: Machine | undefined,
): Promise<BootstrapData> {
  const name = machine?.spec?.bootstrap?.dataSecretName as string;
  const secret = await getOrUndefined(() => client.get(Secret, { namespace, name }));
  const value = secret?.data?.value;
  if (!value) throw new NotReady('WaitingForBootstrapData', `bootstrap Secret ${name} has no value yet`);
  const format = bootstrapFormat(secret.data?.format);
  if (!format) {
    throw new NotReady(
      'UnknownBootstrapFormat',
      `bootstrap Secret ${name}: format is neither cloud-config nor ignition`,
    );
  }
  const encoded = encodeBootstrap(value);
  if ('error' in encoded)
    throw new NotReady('BootstrapDataTooLarge', `bootstrap Secret ${name}: ${encoded.error}`);
  return { valueBase64: value, format, encoded };
}

/**
 * The ExtraConfig keys for this VM: bootstrap data verbatim plus metadata with every NIC's
 * addressing (the networks of static NICs are read once per session: the directory caches them).
 */
export async function guestinfoOf(
  connection: Connection,
  bootstrap: BootstrapData,
  vm: VmRecord,
  hostname: string,
  addressed: AddressedNics,
  ovdc: string,
): Promise<Record<string, string>> {
  const { nics, claimed } = addressed;
  const staticNic = (n: NicIntent) =>
    n.mode === 'MANUAL' || (n.mode === 'POOL' && vm.nics.some((o) => o.index === n.index && o.ip));
  const names = [...new Set(nics.filter(staticNic).map((n) => n.network))];
  const refs = names.length > 0 ? await connection.directory.networks(ovdc, names) : [];
  const networks = new Map<string, NetworkAddressing>();
  for (const ref of refs) {
    const info = await connection.directory.network(ref.href);
    if (info.prefixLength !== undefined) networks.set(ref.name, { ...info, prefixLength: info.prefixLength });
  }
  const guest = guestNics(nics, vm.nics, claimed, networks);
  return guestinfoFor(bootstrap, { instanceId: vm.id, hostname, nics: guest });
}
