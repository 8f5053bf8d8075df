/**
 * Static IP pools (VCD's POOL allocation): pure decisions over ranges and the set of addresses in
 * use. IPv4 only, which is what org VDC network pools and edge uplink ranges hold in the seed.
 */

/** An inclusive range of IPv4 addresses. */
export interface IpRange {
  startAddress: string;
  endAddress: string;
}

/** The 32-bit value of a dotted IPv4 address, or undefined if it is not one. */
export function ipToInt(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

/** The dotted form of a 32-bit value. */
export function intToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** True when the address lies in one of the ranges. */
export function inRanges(ip: string, ranges: readonly IpRange[]): boolean {
  const v = ipToInt(ip);
  if (v === undefined) return false;
  return ranges.some((r) => v >= ipToInt(r.startAddress)! && v <= ipToInt(r.endAddress)!);
}

/** How many addresses the ranges hold (overlaps counted once). */
export function poolSize(ranges: readonly IpRange[]): number {
  const spans = ranges
    .map((r) => [ipToInt(r.startAddress)!, ipToInt(r.endAddress)!] as const)
    .filter(([a, b]) => b >= a)
    .sort((x, y) => x[0] - y[0]);
  let total = 0;
  let reach = -1;
  for (const [a, b] of spans) {
    const from = Math.max(a, reach + 1);
    if (b >= from) total += b - from + 1;
    reach = Math.max(reach, b);
  }
  return total;
}

/**
 * The lowest address of the ranges not in `used`, or undefined when the pool is exhausted.
 * Lowest-first matches what VCD hands out from a fresh pool and keeps answers reproducible.
 */
export function allocate(ranges: readonly IpRange[], used: ReadonlySet<string>): string | undefined {
  const spans = ranges
    .map((r) => [ipToInt(r.startAddress)!, ipToInt(r.endAddress)!] as const)
    .sort((x, y) => x[0] - y[0]);
  for (const [a, b] of spans) {
    for (let v = a; v <= b; v++) {
      const ip = intToIp(v);
      if (!used.has(ip)) return ip;
    }
  }
  return undefined;
}

/** Checks a range is two IPv4 addresses in order; returns a reason when it is not. */
export function rangeProblem(r: IpRange): string | undefined {
  const a = ipToInt(r.startAddress);
  const b = ipToInt(r.endAddress);
  if (a === undefined) return `"${r.startAddress}" is not an IPv4 address`;
  if (b === undefined) return `"${r.endAddress}" is not an IPv4 address`;
  if (b < a) return `range ${r.startAddress}-${r.endAddress} ends before it starts`;
  return undefined;
}

/** A NIC's addressing, as its NetworkConnection shows it. */
export interface NicAddressing {
  allocationMode: string;
  ipAddress?: string;
  requestedIp?: string;
}

/**
 * The address VCD reports for a NIC: a MANUAL NIC's configured address at once (it is the VM's
 * setting, powered on or not); a POOL or DHCP NIC's once the guest has it.
 */
export function shownAddress(nic: NicAddressing): string | undefined {
  return nic.ipAddress ?? (nic.allocationMode === 'MANUAL' ? nic.requestedIp : undefined);
}
