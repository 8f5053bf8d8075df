/** The conditions of a VCDMachine a reconcile stopped short on. */
import type { Result } from '@capstan/runtime';
import { Conditions } from '../api/keys.js';
import type { VCDMachine, VCDMachineStatus } from '../api/types.js';
import { failureReason } from '../failure-reason.js';
import { condition } from '../status.js';
import type { VcdErrorBackoff } from '../vcd/error-backoff.js';
import { VcdError } from '../vcd/errors.js';
import type { MachineScope } from './scope.js';

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

/** Says in conditions why a reconcile stopped at `err`, and when to try again; rethrows a bug. */
export function reportFailure(s: MachineScope, err: unknown, backoff: VcdErrorBackoff): Result {
  const reason = failureReason(err);
  if (reason === undefined) throw err;
  const message = (err as Error).message;
  if (err instanceof VcdError) s.log.warn({ code: err.minorErrorCode, status: err.status }, message);
  notReady(s.status, s.vcdMachine, s.deleting, reason, message);
  // VCD faults back off per object; waiting for Kubernetes objects is woken by their watches.
  return err instanceof VcdError ? { requeueAfter: backoff.failed(s.key) } : { requeueAfter: 30_000 };
}
