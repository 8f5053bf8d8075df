/** VCD's disk controller types (DiskSettings AdapterType codes) and their limits. */

/** A controller type: its rasd bus sub type, rasd bus type, and the buses and units it has. */
export interface Adapter {
  subType: string;
  busType: number;
  scsi: boolean;
  buses: number;
  units: number;
}

/** VCD's DiskSettings AdapterType codes. */
export const ADAPTERS: Record<string, Adapter> = {
  '1': { subType: 'ide', busType: 5, scsi: false, buses: 2, units: 2 },
  '2': { subType: 'buslogic', busType: 6, scsi: true, buses: 4, units: 16 },
  '3': { subType: 'lsilogic', busType: 6, scsi: true, buses: 4, units: 16 },
  '4': { subType: 'lsilogicsas', busType: 6, scsi: true, buses: 4, units: 16 },
  '5': { subType: 'VirtualSCSI', busType: 6, scsi: true, buses: 4, units: 16 },
  '6': { subType: 'vmware.sata.ahci', busType: 20, scsi: false, buses: 4, units: 30 },
  '7': { subType: 'vmware.nvme.controller', busType: 20, scsi: false, buses: 4, units: 15 },
};

/** The AdapterType code of a disk's controller (its rasd bus sub type). */
export function adapterCode(subType: string): string {
  return Object.entries(ADAPTERS).find(([, a]) => a.subType === subType)?.[0] ?? '3';
}

/** The rasd bus type of a disk's controller (6 SCSI, 5 IDE, 20 SATA and NVMe). */
export const rasdBusType = (subType: string): number => ADAPTERS[adapterCode(subType)]?.busType ?? 6;
