/**
 * The machine's own hardware and graceful power-off, as pure decisions: data disk slots never
 * collide and are found again, a VM is configured exactly when it has what is asked, and a
 * deleted machine's powered-on VM is shut down, waited for, then forced only in trySoft.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ADAPTER_TYPE,
  type BusType,
  type DataDiskWish,
  hardwareMatches,
  type ObservedHardware,
  type PowerOffMode,
  planDataDisks,
  powerOffStep,
} from '../src/decide/hardware.js';
import { decideMachine, isConfigured, type ObservedVM, VmStatus } from '../src/decide/machine.js';

const busType = fc.constantFrom<BusType>('paravirtual', 'lsilogicsas', 'sata', 'nvme');
const wish = fc.record({
  name: fc.string({ minLength: 1, maxLength: 8 }),
  sizeMb: fc.integer({ min: 1, max: 1 << 20 }),
  busType: fc.option(busType, { nil: undefined }),
});
const wishes = fc
  .array(wish, { maxLength: 8 })
  .map((ws) =>
    ws.map(
      (w): DataDiskWish => ({ name: w.name, sizeMb: w.sizeMb, ...(w.busType ? { busType: w.busType } : {}) }),
    ),
  );
/** The template's own disk, on bus 0 as templates keep theirs. */
const osDisk = { id: '2000', sizeMb: 20480, adapterType: '5', busNumber: 0, unitNumber: 0 };
const seenWith = (
  disks: ObservedHardware['disks'],
  over: Partial<ObservedHardware> = {},
): ObservedHardware => ({
  cpus: 2,
  coresPerSocket: 1,
  memoryMb: 4096,
  disks,
  ...over,
});

describe('planDataDisks', () => {
  it('gives each disk its own slot, off bus 0, on its type’s controller, never SCSI unit 7', () => {
    fc.assert(
      fc.property(wishes, (ws) => {
        const plan = planDataDisks(ws);
        expect(plan).toHaveLength(ws.length);
        const slots = plan.map((p) => `${p.adapterType}/${p.busNumber}/${p.unitNumber}`);
        expect(new Set(slots).size).toBe(slots.length);
        for (const [i, p] of plan.entries()) {
          expect(p.adapterType).toBe(ADAPTER_TYPE[ws[i]?.busType ?? 'paravirtual']);
          expect(p.busNumber).toBeGreaterThan(0);
          if (p.adapterType === '4' || p.adapterType === '5') expect(p.unitNumber).not.toBe(7);
          expect(p.sizeMb).toBe(ws[i]?.sizeMb);
        }
        // The two SCSI types never share a controller (a SCSI bus has one type).
        const scsiBus = (t: string) =>
          new Set(plan.filter((p) => p.adapterType === t).map((p) => p.busNumber));
        for (const b of scsiBus('4')) expect(scsiBus('5').has(b)).toBe(false);
      }),
    );
  });

  it('is stable: the same spec plans the same slots (a later look finds its disks again)', () => {
    fc.assert(
      fc.property(wishes, (ws) => {
        expect(planDataDisks(ws)).toEqual(planDataDisks(structuredClone(ws)));
      }),
    );
  });
});

describe('hardwareMatches', () => {
  it('holds once the VM has each planned disk at least its size and the sizing asked', () => {
    fc.assert(
      fc.property(wishes, fc.integer({ min: 0, max: 512 }), (ws, extra) => {
        const dataDisks = planDataDisks(ws);
        const made = dataDisks.map((d, i) => ({ ...d, id: String(2001 + i), sizeMb: d.sizeMb + extra }));
        const want = { cpus: 4, coresPerSocket: 2, memoryMb: 8192, dataDisks };
        const seen = seenWith([osDisk, ...made], { cpus: 4, coresPerSocket: 2, memoryMb: 8192 });
        expect(hardwareMatches(want, seen)).toBe(true);
        expect(hardwareMatches({ ...want, cpus: 6 }, seen)).toBe(false);
        expect(hardwareMatches({ ...want, memoryMb: 4096 }, seen)).toBe(false);
        if (made.length > 0) {
          expect(hardwareMatches(want, seenWith([osDisk, ...made.slice(1)], want))).toBe(false);
          const small = made.map((d, i) => (i === 0 ? { ...d, sizeMb: (dataDisks[0]?.sizeMb ?? 1) - 1 } : d));
          expect(hardwareMatches(want, seenWith([osDisk, ...small], want))).toBe(false);
        }
      }),
    );
  });
});

describe('decideMachine with hardware', () => {
  const vm = (hardware?: ObservedHardware): ObservedVM => ({
    name: 'm1',
    status: VmStatus.PoweredOff,
    deployed: false,
    busy: false,
    description: 'capvcd machine ns/m1',
    extraConfig: { 'guestinfo.userdata': 'x' },
    ...(hardware ? { hardware } : {}),
  });
  const base = {
    vmName: 'm1',
    vappMarker: 'capvcd cluster ns/c1',
    vmMarker: 'capvcd machine ns/m1',
    guestinfo: { 'guestinfo.userdata': 'x' },
    deleting: false,
  };
  const seen = (v: ObservedVM) => ({
    taskRunning: false,
    vapp: { deployed: false, busy: false, description: base.vappMarker, vms: [v] },
  });

  it('powers on only a VM with the asked CPU, memory and disks; configures any other', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 16 }),
        wishes,
        (cpus, seenCpus, ws) => {
          const hardware = { cpus, dataDisks: planDataDisks(ws) };
          const disks = [osDisk, ...hardware.dataDisks.map((d, i) => ({ ...d, id: String(2001 + i) }))];
          const step = decideMachine({ ...base, hardware }, seen(vm(seenWith(disks, { cpus: seenCpus }))));
          expect(step.kind).toBe(seenCpus === cpus ? 'PowerOn' : 'ConfigureVM');
        },
      ),
    );
  });

  it('asks nothing of the hardware when the spec sets none (as before the fields)', () => {
    expect(isConfigured(vm(), base.guestinfo, { dataDisks: [] })).toBe(true);
    expect(decideMachine({ ...base, hardware: { dataDisks: [] } }, seen(vm())).kind).toBe('PowerOn');
  });
});

describe('powerOffStep', () => {
  const mode = fc.constantFrom<PowerOffMode>('hard', 'trySoft', 'soft');
  it('hard powers off; the others shut the guest down first, and only trySoft forces, after the timeout', () => {
    fc.assert(
      fc.property(
        mode,
        fc.integer({ min: 1, max: 3_600_000 }),
        fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: undefined }),
        fc.integer({ min: 0, max: 10_000_000 }),
        (m, timeoutMs, requestedAt, elapsed) => {
          const now = (requestedAt ?? 0) + elapsed;
          const step = powerOffStep({
            mode: m,
            timeoutMs,
            now,
            ...(requestedAt !== undefined ? { requestedAt } : {}),
          });
          const want =
            m === 'hard'
              ? 'PowerOff'
              : requestedAt === undefined
                ? 'ShutdownGuest'
                : elapsed < timeoutMs
                  ? 'WaitForVCD'
                  : m === 'trySoft'
                    ? 'PowerOff'
                    : 'ShutdownGuest';
          expect(step.kind).toBe(want);
        },
      ),
    );
  });

  it('is what a deleted machine’s powered-on VM gets, and a VM the guest turned off goes on to undeploy', () => {
    const on: ObservedVM = {
      name: 'm1',
      status: VmStatus.PoweredOn,
      deployed: true,
      busy: false,
      description: 'capvcd machine ns/m1',
      extraConfig: {},
    };
    const intent = {
      vmName: 'm1',
      vappMarker: 'v',
      vmMarker: 'capvcd machine ns/m1',
      guestinfo: {},
      deleting: true,
      powerOff: { mode: 'trySoft' as const, timeoutMs: 1000, now: 5000 },
    };
    const vapp = (v: ObservedVM) => ({
      taskRunning: false,
      vapp: { deployed: true, busy: false, description: 'v', vms: [v] },
    });
    expect(decideMachine(intent, vapp(on)).kind).toBe('ShutdownGuest');
    expect(
      decideMachine({ ...intent, powerOff: { ...intent.powerOff, requestedAt: 4500 } }, vapp(on)),
    ).toMatchObject({
      kind: 'WaitForVCD',
      reason: 'GuestShuttingDown',
    });
    expect(
      decideMachine({ ...intent, powerOff: { ...intent.powerOff, requestedAt: 3000 } }, vapp(on)).kind,
    ).toBe('PowerOff');
    const off = { ...on, status: VmStatus.PoweredOff };
    expect(
      decideMachine({ ...intent, powerOff: { ...intent.powerOff, requestedAt: 4500 } }, vapp(off)).kind,
    ).toBe('UndeployVM');
  });
});
