/**
 * The delete guard for named disks: while a machine is deleted and its cluster stays, a VM with
 * named disks attached gets no write (no power-off, undeploy or delete) whatever its state; once
 * they are detached, or when the whole cluster goes, deletion goes on as without them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideMachine, type MachineIntent, type ObservedVM, WRITES } from '../src/decide/machine.js';

const intent = (guardNamedDisks: boolean): MachineIntent => ({
  vmName: 'm1',
  vappMarker: 'capvcd cluster ns/c1',
  vmMarker: 'capvcd machine ns/m1',
  guestinfo: {},
  deleting: true,
  guardNamedDisks,
});

const vmArb = fc.record({
  status: fc.constantFrom(-1, 0, 1, 4, 8),
  deployed: fc.boolean(),
  busy: fc.boolean(),
  ip: fc.option(fc.constant('10.0.0.5'), { nil: undefined }),
  namedDisks: fc.array(fc.constantFrom('pvc-1', 'pvc-2', 'data'), { maxLength: 3 }),
});

const observe = (vm: Omit<ObservedVM, 'name' | 'description' | 'extraConfig'>) => ({
  taskRunning: false,
  vapp: {
    deployed: true,
    busy: false,
    description: 'capvcd cluster ns/c1',
    vms: [{ ...vm, name: 'm1', description: 'capvcd machine ns/m1', extraConfig: {} }],
  },
});

describe('the named-disk delete guard', () => {
  it('no write to a VM with named disks attached while its cluster stays; NamedDisksAttached said', () => {
    fc.assert(
      fc.property(vmArb, (vm) => {
        const step = decideMachine(intent(true), observe(vm));
        if (vm.namedDisks.length > 0) {
          expect(WRITES.has(step.kind)).toBe(false);
          if (!vm.busy) expect(step).toMatchObject({ kind: 'Blocked', reason: 'NamedDisksAttached' });
        }
      }),
    );
  });

  it('without named disks, or when the cluster goes, the guard changes nothing', () => {
    fc.assert(
      fc.property(vmArb, fc.boolean(), (vm, clusterGoes) => {
        const without = { ...vm, namedDisks: [] };
        const guarded = clusterGoes ? vm : without;
        const step = decideMachine(intent(!clusterGoes), observe(guarded));
        expect(step).toEqual(decideMachine(intent(false), observe(without)));
      }),
    );
  });
});
