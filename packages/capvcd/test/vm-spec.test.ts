/**
 * The reconfigure's VmSpecSection: VCD takes its DiskSection whole (a disk left out is removed), so
 * every internal disk the VM has is sent again, never shrunk, and only the data disks it lacks are
 * added; with nothing to change, no section is sent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ObservedHardware, planDataDisks } from '../src/decide/hardware.js';
import { vmSpecSectionXml } from '../src/vcd/vm-spec.js';
import { childOf, listOf, parseXml, textOf } from '../src/vcd/xml.js';

const seenDisk = fc.record({
  sizeMb: fc.integer({ min: 1, max: 1 << 20 }),
  adapterType: fc.constantFrom('3', '4', '5', '6', '7'),
  busNumber: fc.integer({ min: 0, max: 3 }),
  unitNumber: fc.integer({ min: 0, max: 14 }),
});
const hardware = fc.array(seenDisk, { minLength: 1, maxLength: 5 }).map(
  (disks): ObservedHardware => ({
    cpus: 2,
    coresPerSocket: 1,
    memoryMb: 4096,
    disks: disks.map((d, i) => ({ ...d, id: String(2000 + i) })),
  }),
);
const wants = fc.array(
  fc.record({
    name: fc.string({ minLength: 1, maxLength: 4 }),
    sizeMb: fc.integer({ min: 1, max: 1 << 20 }),
    busType: fc.constantFrom('paravirtual' as const, 'sata' as const, 'nvme' as const),
  }),
  { maxLength: 4 },
);
const slot = (d: { adapterType: string; busNumber: number; unitNumber: number }) =>
  `${d.adapterType}/${d.busNumber}/${d.unitNumber}`;

describe('vmSpecSectionXml', () => {
  it('re-sends every disk the VM has (never smaller) and adds only the data disks it lacks', () => {
    fc.assert(
      fc.property(
        hardware,
        wants,
        fc.option(fc.integer({ min: 1, max: 1 << 21 })),
        (seen, ws, diskSizeMb) => {
          const dataDisks = planDataDisks(ws);
          const xml = vmSpecSectionXml(seen, {
            ...(diskSizeMb !== null ? { diskSizeMb } : {}),
            hardware: { cpus: 4, dataDisks },
          });
          const section = childOf(childOf(parseXml(`<Vm>${xml}</Vm>`), 'Vm'), 'VmSpecSection');
          expect(textOf(section?.NumCpus)).toBe('4');
          const sent = listOf(childOf(section, 'DiskSection'), 'DiskSettings');
          for (const d of seen.disks) {
            const again = sent.filter((s) => textOf(s.DiskId) === d.id);
            expect(again).toHaveLength(1);
            expect(Number(textOf(again[0]?.SizeMb))).toBeGreaterThanOrEqual(d.sizeMb);
          }
          const have = new Set(seen.disks.map(slot));
          const added = sent.filter((s) => textOf(s.DiskId) === undefined);
          expect(added).toHaveLength(dataDisks.filter((d) => !have.has(slot(d))).length);
          const first = seen.disks[0];
          if (diskSizeMb !== null && first) {
            // The first disk grows to diskSize, or further when a data disk's slot is its own.
            const inSlot = dataDisks.filter((d) => slot(d) === slot(first)).map((d) => d.sizeMb);
            expect(Number(textOf(sent[0]?.SizeMb))).toBe(Math.max(first.sizeMb, diskSizeMb, ...inSlot));
          }
        },
      ),
    );
  });

  it('sends no section when nothing there changes', () => {
    const seen: ObservedHardware = {
      cpus: 2,
      coresPerSocket: 1,
      memoryMb: 4096,
      disks: [{ id: '2000', sizeMb: 100, adapterType: '3', busNumber: 0, unitNumber: 0 }],
    };
    expect(vmSpecSectionXml(seen, {})).toBe('');
    expect(vmSpecSectionXml(seen, { diskSizeMb: 50 })).toBe('');
    expect(vmSpecSectionXml(seen, { diskSizeMb: 200 })).toContain('<SizeMb>200</SizeMb>');
  });
});
