/** The conditions of a VCDMachine a reconcile stopped short on. */
import { Conditions } from '../api/keys.js';
import type { VCDMachine, VCDMachineStatus } from '../api/types.js';
import { condition } from '../status.js';

/** VMProvisioned (still True for a provisioned machine that is not being deleted) and Ready=False. */
export function notReady(
  status: VCDMachineStatus,
  vcdMachine: VCDMachine,
  deleting: boolean,
  reason: string,
  message: string,
) {
  const provisioned = status.initialization?.provisioned === true && !deleting;
  condition(status, vcdMachine, Conditions.VMProvisioned, provisioned, reason, message);
  condition(status, vcdMachine, Conditions.Ready, false, deleting ? 'Deleting' : reason, message);
}
