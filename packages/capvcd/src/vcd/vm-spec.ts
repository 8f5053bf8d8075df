/**
 * A VM's VmSpecSection: read into its sizing and internal disks, and written for a reconfigure
 * (CPU, cores, memory, the first disk grown, data disks added). VCD takes the DiskSection whole,
 * so every internal disk is sent again, in VCD's element order.
 */
import type { ObservedDisk, ObservedHardware, PlannedDisk, WantedHardware } from '../decide/hardware.js';
import { childOf, esc, listOf, textOf, type XmlNode } from './xml.js';

const num = (node: unknown): number => Number(textOf(node) ?? 0);

/** The VM's sizing and internal (not named) disks, as its VmSpecSection reports them. */
export function readHardware(vm: XmlNode): ObservedHardware | undefined {
  const spec = childOf(vm, 'VmSpecSection');
  if (!spec) return undefined;
  const disks = listOf(childOf(spec, 'DiskSection'), 'DiskSettings')
    .filter((d) => !childOf(d, 'Disk'))
    .map(
      (d): ObservedDisk => ({
        id: textOf(d.DiskId) ?? '',
        sizeMb: num(d.SizeMb),
        adapterType: textOf(d.AdapterType) ?? '',
        busNumber: num(d.BusNumber),
        unitNumber: num(d.UnitNumber),
      }),
    );
  return {
    cpus: num(spec.NumCpus),
    coresPerSocket: num(spec.NumCoresPerSocket),
    memoryMb: num(childOf(spec, 'MemoryResourceMb')?.Configured),
    disks,
  };
}

/** A data disk to add, with its storage profile's href when it names one. */
export interface NewDataDisk extends PlannedDisk {
  storageProfileHref?: string;
}

/** What a reconfigure changes in the VmSpecSection. */
export interface SpecChange {
  /** The first disk's size, grown only. */
  diskSizeMb?: number;
  hardware?: Omit<WantedHardware, 'dataDisks'> & { dataDisks: NewDataDisk[] };
}

const slot = (d: { unitNumber: number; busNumber: number; adapterType: string }) =>
  `<UnitNumber>${d.unitNumber}</UnitNumber><BusNumber>${d.busNumber}</BusNumber><AdapterType>${esc(d.adapterType)}</AdapterType>`;

/** The DiskSection: each disk the VM has (grown as asked), then the data disks it lacks. */
function diskSection(seen: ObservedHardware, change: SpecChange): string {
  const wanted = change.hardware?.dataDisks ?? [];
  const first = seen.disks[0];
  const kept = seen.disks.map((d) => {
    const grownTo = Math.max(
      d.sizeMb,
      d === first ? (change.diskSizeMb ?? 0) : 0,
      ...wanted.filter((w) => slot(w) === slot(d)).map((w) => w.sizeMb),
    );
    return `<DiskSettings><DiskId>${esc(d.id)}</DiskId><SizeMb>${grownTo}</SizeMb>${slot(d)}</DiskSettings>`;
  });
  const added = wanted
    .filter((w) => !seen.disks.some((d) => slot(d) === slot(w)))
    .map(
      (w) =>
        `<DiskSettings><SizeMb>${w.sizeMb}</SizeMb>${slot(w)}<ThinProvisioned>true</ThinProvisioned>` +
        (w.storageProfileHref
          ? `<StorageProfile href="${esc(w.storageProfileHref)}"/><overrideVmDefault>true</overrideVmDefault>`
          : '') +
        '</DiskSettings>',
    );
  return `<DiskSection>${[...kept, ...added].join('')}</DiskSection>`;
}

/** The VmSpecSection of a reconfigure, or '' when it changes nothing there. */
export function vmSpecSectionXml(seen: ObservedHardware | undefined, change: SpecChange): string {
  const h = change.hardware;
  const grow = change.diskSizeMb !== undefined && (seen?.disks[0]?.sizeMb ?? Infinity) < change.diskSizeMb;
  if (!seen || (!grow && !h)) return '';
  const sizing =
    (h?.cpus !== undefined ? `<NumCpus>${h.cpus}</NumCpus>` : '') +
    (h?.coresPerSocket !== undefined ? `<NumCoresPerSocket>${h.coresPerSocket}</NumCoresPerSocket>` : '') +
    (h?.memoryMb !== undefined
      ? `<MemoryResourceMb><Configured>${h.memoryMb}</Configured></MemoryResourceMb>`
      : '');
  return (
    `<VmSpecSection Modified="true"><ovf:Info>Sizing and disks</ovf:Info>${sizing}` +
    `${diskSection(seen, change)}</VmSpecSection>`
  );
}
