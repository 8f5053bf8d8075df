/**
 * A VM task's end told by the VM ({@link vmTaskEnd}), by properties against the decision itself:
 * a task is judged succeeded only when the VM is idle and shows what the task did, so a failed
 * task (the VM as it was before it) is always read for its outcome, never retried blind.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideMachine, isConfigured, type ObservedVM, VmStatus } from '../src/decide/machine.js';
import { endSeenOnVm, vmTaskEnd } from '../src/decide/vm-task-end.js';
import { intent, vmOf } from './machine-fixtures.js';

const vmArb = vmOf(fc.constant('m1'));
const operation = fc.constantFrom('ConfigureVM', 'PowerOn');
const stepOn = (vm: ObservedVM, vappBusy: boolean) =>
  decideMachine(intent, {
    taskRunning: false,
    vapp: { deployed: true, busy: vappBusy, description: intent.vappMarker, vms: [vm] },
  });

describe('vmTaskEnd', () => {
  it('property: succeeded only for an idle VM that shows what the task did; running only for a busy one', () => {
    fc.assert(
      fc.property(operation, vmArb, fc.boolean(), (op, vm, vappBusy) => {
        const end = vmTaskEnd(op, vm, stepOn(vm, vappBusy));
        if (vm.busy) expect(end).toBe('running');
        if (end !== 'succeeded') return;
        expect(vm.busy).toBe(false);
        expect(vm.description).toBe(intent.vmMarker);
        if (op === 'PowerOn') expect(vm.status).toBe(VmStatus.PoweredOn);
        else expect(vm.status === VmStatus.PoweredOn || isConfigured(vm, intent.guestinfo)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: a task that failed (the VM as before it) is read for its outcome', () => {
    fc.assert(
      fc.property(vmArb, fc.boolean(), (vm, vappBusy) => {
        const before = { ...vm, busy: false };
        const unconfigured = { ...before, status: VmStatus.PoweredOff, extraConfig: {} };
        expect(vmTaskEnd('ConfigureVM', unconfigured, stepOn(unconfigured, vappBusy))).toBe('readTask');
        const off = { ...before, status: VmStatus.PoweredOff, extraConfig: intent.guestinfo };
        expect(vmTaskEnd('PowerOn', off, stepOn(off, vappBusy))).toBe('readTask');
      }),
    );
  });

  it('reads the task when the VM is gone; looks on the VM only for the create path’s VM tasks', () => {
    expect(vmTaskEnd('PowerOn', undefined, { kind: 'CreateVM' })).toBe('readTask');
    expect(['ConfigureVM', 'PowerOn'].map(endSeenOnVm)).toEqual([true, true]);
    expect(
      ['CreateVM', 'CreateVApp', 'PowerOff', 'DeleteVM', 'UndeployVM', undefined].map(endSeenOnVm),
    ).toEqual(Array(6).fill(false));
  });
});
