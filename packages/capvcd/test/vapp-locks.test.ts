/**
 * Leaving out a look at a busy vApp: the pure rule ({@link lookWouldWait}) is checked against the
 * decision itself, over every vApp VCD could show while our tasks hold the locks we believe they
 * hold; the record ({@link VAppLocks}) is checked on a manual clock.
 */
import { ManualClock } from '@capstan/runtime/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decideMachine,
  type LockScope,
  lockScope,
  lookWouldWait,
  type ObservedVM,
  VmStatus,
} from '../src/decide/machine.js';
import { LOCK_GRACE_MS, VAppLocks } from '../src/machine/vapp-locks.js';
import { intent } from './machine-fixtures.js';

const statuses = [
  VmStatus.FailedCreation,
  VmStatus.Unresolved,
  VmStatus.Resolved,
  3,
  VmStatus.PoweredOn,
  VmStatus.PoweredOff,
];
const vmArb = (name: string, ours: string): fc.Arbitrary<ObservedVM> =>
  fc.record({
    name: fc.constant(name),
    status: fc.constantFrom(...statuses),
    deployed: fc.boolean(),
    busy: fc.boolean(),
    description: fc.constantFrom(ours, 'someone else'),
    ip: fc.option(fc.constant('10.0.0.9'), { nil: undefined }),
    extraConfig: fc.constantFrom<Record<string, string>>({}, { 'guestinfo.userdata': 'dXNlcmRhdGE=' }),
  });

/** Another machine's lock, with the VM its task runs on (a VM lock needs one). */
const lockArb = fc.record({
  scope: fc.constantFrom<LockScope>('vapp', 'vm'),
  holder: fc.constantFrom('m2', 'm3', 'm4'),
});

describe('lookWouldWait', () => {
  it('property: a look it leaves out could only have waited (WaitForVCD) or blocked, never written or finished', () => {
    fc.assert(
      fc.property(
        fc.array(lockArb, { minLength: 0, maxLength: 3 }),
        fc.boolean(),
        fc.boolean(),
        vmArb('m1', intent.vmMarker),
        fc.array(vmArb('m5', 'capvcd machine ns/m5'), { maxLength: 2 }),
        fc.dictionary(
          fc.constantFrom('m2', 'm3', 'm4'),
          fc.record({ vm: vmArb('x', 'x'), present: fc.boolean() }),
        ),
        (locks, knownWithoutVm, vappBusy, own, strangers, others) => {
          const ahead = { deleting: false, knownWithoutVm, othersLocks: locks.map((l) => l.scope) };
          if (!lookWouldWait(ahead)) return;
          const vappLocked = locks.some((l) => l.scope === 'vapp');
          const vmLocked = new Set<string>(locks.filter((l) => l.scope === 'vm').map((l) => l.holder));
          // What VCD shows while those locks are held: a vApp lock holds the vApp and every VM in
          // it; a VM lock holds its VM, which exists. Everything else is free to vary.
          const holders = [...new Set(locks.map((l) => l.holder))].flatMap((holder): ObservedVM[] => {
            const other = others[holder];
            if (!vmLocked.has(holder) && other?.present === false) return [];
            const vm = other?.vm ?? {
              status: VmStatus.PoweredOn,
              deployed: true,
              busy: false,
              extraConfig: {},
            };
            return [{ ...vm, name: holder, description: `capvcd machine ns/${holder}` }];
          });
          const vms = [...(knownWithoutVm ? [] : [own]), ...strangers, ...holders].map((v) => ({
            ...v,
            busy: vappLocked || vmLocked.has(v.name) || v.busy,
          }));
          const step = decideMachine(intent, {
            taskRunning: false,
            vapp: { deployed: true, busy: vappLocked || vappBusy, description: intent.vappMarker, vms },
          });
          expect(['WaitForVCD', 'Blocked']).toContain(step.kind);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('looks when deleting, when nothing of ours runs there, and past a VM lock for a machine that may have its VM', () => {
    expect(lookWouldWait({ deleting: true, knownWithoutVm: true, othersLocks: ['vapp'] })).toBe(false);
    expect(lookWouldWait({ deleting: false, knownWithoutVm: true, othersLocks: [] })).toBe(false);
    expect(lookWouldWait({ deleting: false, knownWithoutVm: false, othersLocks: ['vm', 'vm'] })).toBe(false);
    expect(lookWouldWait({ deleting: false, knownWithoutVm: true, othersLocks: ['vm'] })).toBe(true);
    expect(lookWouldWait({ deleting: false, knownWithoutVm: false, othersLocks: ['vm', 'vapp'] })).toBe(true);
  });

  it('a recompose, a compose and the vApp’s own undeploy and delete lock the vApp; the VM steps their VM', () => {
    for (const kind of ['CreateVApp', 'CreateVM', 'UndeployVApp', 'DeleteVApp'] as const)
      expect(lockScope(kind)).toBe('vapp');
    for (const kind of ['ConfigureVM', 'PowerOn', 'PowerOff', 'UndeployVM', 'DeleteVM'] as const)
      expect(lockScope(kind)).toBe('vm');
  });
});

describe('VAppLocks', () => {
  const vapp = 'uid/ovdc/c1';
  const wait = { kind: 'WaitForVCD', reason: 'VAppBusy', message: 'busy' } as const;

  it('a task seen ended frees every machine that recorded it (a batch), and no other lock', () => {
    const locks = new VAppLocks(new ManualClock());
    for (const m of ['m1', 'm2', 'm3']) locks.hold(vapp, m, 'CreateVM', 1_000, 'task-1');
    locks.hold(vapp, 'm4', 'PowerOn', 1_000, 'task-2');
    locks.decided('m5', wait, false);
    expect(locks.mustWait(vapp, 'm5', false)).toBe(true);
    locks.ended(vapp, 'task-1');
    expect(locks.mustWait(vapp, 'm5', false)).toBe(true); // m4's VM task still runs
    expect(locks.idle(vapp)).toBe(false);
    locks.ended(vapp, 'task-2');
    expect(locks.idle(vapp)).toBe(true);
    expect(locks.size.vapps).toBe(0);
  });

  it('another machine’s recompose makes a look wait; its own never does; released, nobody waits', () => {
    const locks = new VAppLocks(new ManualClock());
    locks.hold(vapp, 'ns/m2', 'CreateVM', 1000);
    expect(locks.mustWait(vapp, 'ns/m1', false)).toBe(true);
    expect(locks.mustWait(vapp, 'ns/m2', false)).toBe(false);
    expect(locks.mustWait('uid/ovdc/other', 'ns/m1', false)).toBe(false);
    expect(locks.mustWait(vapp, 'ns/m1', true)).toBe(false);
    locks.release(vapp, 'ns/m2');
    expect(locks.mustWait(vapp, 'ns/m1', false)).toBe(false);
    expect(locks.size).toEqual({ vapps: 0, withoutVm: 0 });
  });

  it('a VM lock makes only a machine known to have no VM wait, until that machine looks and finds one', () => {
    const locks = new VAppLocks(new ManualClock());
    locks.hold(vapp, 'ns/m2', 'ConfigureVM', 1000);
    expect(locks.mustWait(vapp, 'ns/m1', false)).toBe(false);
    locks.decided('ns/m1', wait, false);
    expect(locks.mustWait(vapp, 'ns/m1', false)).toBe(true);
    locks.decided('ns/m1', { kind: 'CreateVM' }, false);
    expect(locks.mustWait(vapp, 'ns/m1', false)).toBe(false);
    locks.decided('ns/m3', wait, true); // deleting: its VM may be gone, not missing
    expect(locks.mustWait(vapp, 'ns/m3', false)).toBe(false);
    locks.decided('ns/m1', wait, false);
    locks.forget(vapp, 'ns/m1');
    expect(locks.mustWait(vapp, 'ns/m1', false)).toBe(false);
  });

  it('a lock not renewed by its machine’s next poll plus grace is forgotten; renewed, it holds on', () => {
    const clock = new ManualClock();
    const locks = new VAppLocks(clock);
    locks.hold(vapp, 'ns/m2', 'CreateVM', 1000);
    clock.advance(1000 + LOCK_GRACE_MS);
    expect(locks.mustWait(vapp, 'ns/m1', false)).toBe(true);
    locks.hold(vapp, 'ns/m2', 'CreateVM', 4000); // its poll found the task running
    clock.advance(4000 + LOCK_GRACE_MS);
    expect(locks.mustWait(vapp, 'ns/m1', false)).toBe(true);
    clock.advance(1);
    expect(locks.mustWait(vapp, 'ns/m1', false)).toBe(false);
    expect(locks.size.vapps).toBe(0);
  });
});
