/**
 * The VCDMachine spec's own hardware and power-off, read into what the decision takes
 * ({@link WantedHardware}, {@link PowerOffIntent}), and the data disks' storage profiles looked up
 * for the reconfigure that adds them.
 */
import type { VCDMachineSpec, VCDMachineStatus } from '../api/types.js';
import {
  type PowerOffIntent,
  planDataDisks,
  type WantedHardware,
  wantsHardware,
} from '../decide/hardware.js';
import { NotReady } from '../scope.js';
import type { Connection } from '../vcd/connections.js';
import type { SpecChange } from '../vcd/vm-spec.js';
import { parseQuantity } from './quantity.js';

/** trySoft's and soft's wait for the guest when the spec names none (CAPV's default). */
export const DEFAULT_GUEST_SHUTDOWN_TIMEOUT_S = 300;

const mib = (size: string | number): number | undefined => {
  const bytes = parseQuantity(size);
  return bytes === undefined ? undefined : Math.ceil(bytes / 2 ** 20);
};

/**
 * The CPU, memory and data disks the spec asks for. @throws NotReady (`InvalidDataDisk`) for a
 * data disk whose size cannot be read or is zero.
 */
export function wantedHardware(spec: VCDMachineSpec): WantedHardware {
  const dataDisks = (spec.dataDisks ?? []).map((d) => {
    const sizeMb = mib(d.size);
    if (!sizeMb)
      throw new NotReady('InvalidDataDisk', `data disk ${d.name}: size ${d.size} is not a disk size`);
    return {
      name: d.name,
      sizeMb,
      ...(d.storageProfile ? { storageProfile: d.storageProfile } : {}),
      ...(d.busType ? { busType: d.busType } : {}),
    };
  });
  return {
    ...(spec.numCPUs !== undefined ? { cpus: spec.numCPUs } : {}),
    ...(spec.coresPerSocket !== undefined ? { coresPerSocket: spec.coresPerSocket } : {}),
    ...(spec.memoryMiB !== undefined ? { memoryMb: spec.memoryMiB } : {}),
    dataDisks: planDataDisks(dataDisks),
  };
}

/** The power-off a deleted machine's VM gets; `now` in ms since the epoch. */
export function powerOffIntent(spec: VCDMachineSpec, status: VCDMachineStatus, now: number): PowerOffIntent {
  const requested = status.guestShutdownRequestedAt
    ? Date.parse(status.guestShutdownRequestedAt)
    : Number.NaN;
  return {
    mode: spec.powerOffMode ?? 'hard',
    timeoutMs: (spec.guestSoftPowerOffTimeoutSeconds ?? DEFAULT_GUEST_SHUTDOWN_TIMEOUT_S) * 1000,
    ...(Number.isNaN(requested) ? {} : { requestedAt: requested }),
    now,
  };
}

/** The reconfigure's VmSpecSection change: the first disk's size, and the hardware with profile hrefs. */
export async function specChange(
  connection: Connection,
  ovdc: string,
  spec: VCDMachineSpec,
): Promise<SpecChange> {
  const diskSizeMb = spec.diskSize === undefined ? undefined : mib(spec.diskSize);
  const want = wantedHardware(spec);
  const dataDisks = await Promise.all(
    want.dataDisks.map(async (d) =>
      d.storageProfile
        ? { ...d, storageProfileHref: await connection.directory.storageProfile(ovdc, d.storageProfile) }
        : d,
    ),
  );
  const hardware = { ...want, dataDisks };
  return {
    ...(diskSizeMb !== undefined ? { diskSizeMb } : {}),
    ...(wantsHardware(hardware) ? { hardware } : {}),
  };
}
