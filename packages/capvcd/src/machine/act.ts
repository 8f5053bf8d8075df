/**
 * Turns the machine's decided step into its one VCD write. Lookups (template, policies, storage
 * profile, networks) come from the session's cached directory, so a steady fleet pays for them once.
 */
import type { VCDCluster, VCDMachine } from '../api/types.js';
import type { MachineStep } from '../decide/machine.js';
import type { Task } from '../vcd/client.js';
import type { Connection } from '../vcd/connections.js';
import {
  composeVApp,
  configureVm,
  powerOff,
  powerOn,
  remove,
  shutdownGuest,
  undeploy,
  type VAppRecord,
  type VmRecord,
} from '../vcd/vapp.js';
import { specChange } from './hardware.js';

/** Everything a write may need. */
export interface ActInput {
  step: MachineStep;
  connection: Connection;
  vcdCluster: VCDCluster;
  vcdMachine: VCDMachine;
  /** The VDC and network of the machine's failure domain. */
  ovdc: string;
  networks: string[];
  vmName: string;
  vappName: string;
  vappMarker: string;
  vmMarker: string;
  vapp?: VAppRecord;
  vm?: VmRecord;
  guestinfo: Record<string, string>;
}

/** Starts the step's write and returns its task; undefined for a step that writes nothing. */
export async function act(input: ActInput): Promise<Task | undefined> {
  const { step, connection, vapp, vm } = input;
  const { vcd, directory } = connection;
  const spec = input.vcdMachine.spec;
  switch (step.kind) {
    case 'CreateVApp': {
      const vdc = await directory.vdc(input.ovdc);
      const networks = await directory.networks(input.ovdc, input.networks);
      const task = await composeVApp(vcd, vdc.href, {
        name: input.vappName,
        description: input.vappMarker,
        networks,
      });
      if (task.ownerHref) directory.rememberVApp(input.ovdc, input.vappName, task.ownerHref);
      return task;
    }
    case 'CreateVM':
      // Sent with the other machines waiting for the vApp: see CreateBatches.
      throw new Error('a VM is created in its batch (CreateBatches.send), not alone by act');
    case 'ConfigureVM':
      return configureVm(vcd, need(vm), input.guestinfo, await specChange(connection, input.ovdc, spec));
    case 'PowerOn':
      return powerOn(vcd, need(vm).href);
    case 'PowerOff':
      return powerOff(vcd, need(vm).href);
    case 'ShutdownGuest':
      return shutdownGuest(vcd, need(vm).href);
    case 'UndeployVM':
      return undeploy(vcd, need(vm).href);
    case 'DeleteVM':
      return remove(vcd, need(vm).href);
    case 'UndeployVApp':
      return undeploy(vcd, need(vapp).href);
    case 'DeleteVApp': {
      const task = await remove(vcd, need(vapp).href);
      directory.rememberVApp(input.ovdc, input.vappName, undefined);
      return task;
    }
    default:
      return undefined;
  }
}

function need<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('the decided step needs an object VCD did not report');
  return value;
}
