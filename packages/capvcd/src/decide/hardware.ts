/**
 * The VCDMachine's own hardware and its graceful power-off, as pure functions: where each data
 * disk sits (a fixed controller per bus type, so a later look finds it again), whether the VM
 * already has the CPU, memory and disks wanted, and the power-off step of a deleted machine
 * (CAPV's `powerOffMode`: hard, trySoft = shut the guest down then hard after a timeout, soft).
 */

/** A data disk's controller, as the spec names it. */
export type BusType = 'paravirtual' | 'lsilogicsas' | 'sata' | 'nvme';

/** VCD's DiskSettings `AdapterType` of each controller (4 LSI Logic SAS, 5 paravirtual, 6 SATA, 7 NVMe). */
export const ADAPTER_TYPE: Record<BusType, string> = {
  lsilogicsas: '4',
  paravirtual: '5',
  sata: '6',
  nvme: '7',
};

/**
 * The controller (bus) each type's data disks go on: never bus 0, where templates keep their own
 * disks; the two SCSI types take two SCSI controllers, as a controller has one type.
 */
const BUS_NUMBER: Record<BusType, number> = { paravirtual: 1, lsilogicsas: 2, sata: 1, nvme: 1 };
const isScsi = (bus: BusType) => bus === 'paravirtual' || bus === 'lsilogicsas';

/** Where a disk sits: its controller type, bus and unit. */
export interface DiskSlot {
  adapterType: string;
  busNumber: number;
  unitNumber: number;
}

/** A data disk the spec asks for. */
export interface DataDiskWish {
  name: string;
  sizeMb: number;
  storageProfile?: string;
  busType?: BusType;
}

/** A data disk with its slot. */
export interface PlannedDisk extends DiskSlot {
  name: string;
  sizeMb: number;
  storageProfile?: string;
}

/**
 * The slot of each data disk: its type's controller, units in spec order (SCSI skips unit 7, the
 * controller's own). Pure; two disks never share a slot.
 */
export function planDataDisks(disks: DataDiskWish[]): PlannedDisk[] {
  const nextUnit = new Map<BusType, number>();
  return disks.map((d) => {
    const bus = d.busType ?? 'paravirtual';
    let unit = nextUnit.get(bus) ?? 0;
    if (isScsi(bus) && unit === 7) unit = 8;
    nextUnit.set(bus, unit + 1);
    return {
      name: d.name,
      sizeMb: d.sizeMb,
      ...(d.storageProfile ? { storageProfile: d.storageProfile } : {}),
      adapterType: ADAPTER_TYPE[bus],
      busNumber: BUS_NUMBER[bus],
      unitNumber: unit,
    };
  });
}

/** A disk of the VM as its VmSpecSection reports it (named disks excluded). */
export interface ObservedDisk extends DiskSlot {
  id: string;
  sizeMb: number;
}

/** The VM's sizing and disks as VCD reports them. */
export interface ObservedHardware {
  cpus: number;
  coresPerSocket: number;
  memoryMb: number;
  disks: ObservedDisk[];
}

/** The sizing and data disks the machine wants (absent fields: whatever the VM has). */
export interface WantedHardware {
  cpus?: number;
  coresPerSocket?: number;
  memoryMb?: number;
  dataDisks: PlannedDisk[];
}

const sameSlot = (a: DiskSlot, b: DiskSlot) =>
  a.adapterType === b.adapterType && a.busNumber === b.busNumber && a.unitNumber === b.unitNumber;

/** The VM's disk in this slot, if any. */
export const diskIn = (seen: ObservedHardware, slot: DiskSlot): ObservedDisk | undefined =>
  seen.disks.find((d) => sameSlot(d, slot));

/** Whether the VM has the wanted CPU, cores and memory, and each data disk at least its size. Pure. */
export function hardwareMatches(want: WantedHardware, seen: ObservedHardware): boolean {
  if (want.cpus !== undefined && seen.cpus !== want.cpus) return false;
  if (want.coresPerSocket !== undefined && seen.coresPerSocket !== want.coresPerSocket) return false;
  if (want.memoryMb !== undefined && seen.memoryMb !== want.memoryMb) return false;
  return want.dataDisks.every((d) => (diskIn(seen, d)?.sizeMb ?? -1) >= d.sizeMb);
}

/** Whether the machine asks for any hardware of its own (else nothing is read or sent for it). */
export const wantsHardware = (want: WantedHardware | undefined): want is WantedHardware =>
  want !== undefined &&
  (want.cpus !== undefined ||
    want.coresPerSocket !== undefined ||
    want.memoryMb !== undefined ||
    want.dataDisks.length > 0);

/** How a deleted machine's VM is powered off (CAPV's names). */
export type PowerOffMode = 'hard' | 'trySoft' | 'soft';

/** The power-off wanted, and when the guest was asked to shut down (ms since the epoch). */
export interface PowerOffIntent {
  mode: PowerOffMode;
  timeoutMs: number;
  requestedAt?: number;
  now: number;
}

/** The step that takes a powered-on VM down. */
export type PowerOffStep =
  | { kind: 'PowerOff' }
  | { kind: 'ShutdownGuest' }
  | { kind: 'WaitForVCD'; reason: 'GuestShuttingDown'; message: string };

/**
 * hard: power off. trySoft: ask the guest to shut down, wait up to the timeout, then power off.
 * soft: ask, and ask again each timeout, never forcing. Pure.
 */
export function powerOffStep(p: PowerOffIntent | undefined): PowerOffStep {
  if (!p || p.mode === 'hard') return { kind: 'PowerOff' };
  if (p.requestedAt === undefined) return { kind: 'ShutdownGuest' };
  const waited = p.now - p.requestedAt;
  if (waited >= p.timeoutMs) return p.mode === 'trySoft' ? { kind: 'PowerOff' } : { kind: 'ShutdownGuest' };
  const left = Math.ceil((p.timeoutMs - waited) / 1000);
  return {
    kind: 'WaitForVCD',
    reason: 'GuestShuttingDown',
    message:
      p.mode === 'trySoft'
        ? `the guest is shutting down; powered off in ${left}s if it is still on`
        : `the guest is shutting down (powerOffMode soft: never forced; asked again in ${left}s)`,
  };
}
