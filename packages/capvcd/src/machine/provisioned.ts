/** What a VCDMachine records once its VM is on with an address: providerID, addresses, Ready. */
import type { Client } from '@capstan/runtime';
import { Conditions, providerIdFor } from '../api/keys.js';
import { VCDMachineType } from '../api/types.js';
import type { ObservedVM } from '../decide/machine.js';
import { vmUrn } from '../naming.js';
import { condition } from '../status.js';
import type { VmRecord } from '../vcd/vapp.js';
import { machineAddresses } from './addresses.js';
import { keyOf, type MachineScope } from './scope.js';

/** Records a provisioned VM: providerID in spec (patched), addresses and Ready in status. */
export async function recordProvisioned(
  client: Client,
  s: MachineScope,
  seen: ObservedVM,
  vm: VmRecord,
  zone?: string,
): Promise<void> {
  const providerID = providerIdFor(vmUrn(vm));
  if (s.vcdMachine.spec.providerID !== providerID) {
    const read = s.vcdMachine.metadata.generation;
    s.vcdMachine = await client.patch(VCDMachineType, keyOf(s.vcdMachine), 'merge', { spec: { providerID } });
    // Our own providerID changes nothing the conditions stand on: those of the generation read
    // still hold, and say so now (else the next reconcile's status write does, one write more).
    for (const c of s.status.conditions ?? [])
      if (c.observedGeneration === read) c.observedGeneration = s.vcdMachine.metadata.generation;
  }
  const { status, vcdMachine } = s;
  status.initialization = { provisioned: true };
  status.ready = true;
  status.addresses = machineAddresses(seen.name, seen.ip as string, vm.nics);
  if (zone) status.failureDomain = zone;
  const message = `VM ${seen.name} is on at ${seen.ip}`;
  condition(status, vcdMachine, Conditions.VMProvisioned, true, 'Provisioned', message);
  condition(status, vcdMachine, Conditions.Ready, true, 'Provisioned');
}
