/** One machine's intent and the VMs VCD could show it, shared by the decision's property tests. */
import fc from 'fast-check';
import { type MachineIntent, type ObservedVM, VmStatus } from '../src/decide/machine.js';

/** Machine m1 of cluster c1, with bootstrap data to write. */
export const intent: MachineIntent = {
  vmName: 'm1',
  vappMarker: 'capvcd cluster ns/c1',
  vmMarker: 'capvcd machine ns/m1',
  guestinfo: { 'guestinfo.userdata': 'dXNlcmRhdGE=' },
  deleting: false,
};

/** A VM named by `name`: any state, busy or not, m1's or another's, configured for m1 or not. */
export const vmOf = (name: fc.Arbitrary<string>): fc.Arbitrary<ObservedVM> =>
  fc.record({
    name,
    status: fc.constantFrom(
      VmStatus.FailedCreation,
      VmStatus.Resolved,
      VmStatus.PoweredOn,
      VmStatus.PoweredOff,
      3,
    ),
    deployed: fc.boolean(),
    busy: fc.boolean(),
    description: fc.constantFrom(intent.vmMarker, 'capvcd machine ns/m2', 'someone else'),
    ip: fc.option(fc.constant('10.0.0.9'), { nil: undefined }),
    extraConfig: fc.constantFrom<Record<string, string>>({}, intent.guestinfo, {
      'guestinfo.userdata': 'b2xk',
    }),
  });
