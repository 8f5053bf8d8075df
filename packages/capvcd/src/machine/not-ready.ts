/** The conditions of a VCDMachine a reconcile stopped short on. */
import { getCondition, jittered, type Result } from '@capstan/runtime';
import { Conditions } from '../api/keys.js';
import type { VCDMachine, VCDMachineStatus } from '../api/types.js';
import type { MachineStep } from '../decide/machine.js';
import { pollKeepsCondition, waitKeepsConditions } from '../decide/progress.js';
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

/**
 * What a step short of the goal means for the conditions, and when to look again: `recheckMs` for
 * a wait (jittered), `pollMs` when a task was just started. A wait on the vApp's other work while
 * the machine's making is under way leaves the conditions as they are ({@link waitKeepsConditions}).
 */
export function waiting(s: MachineScope, step: MachineStep, recheckMs: number, pollMs: number): Result {
  const blocked = step.kind === 'Blocked' || step.kind === 'WaitForVCD';
  const reason = blocked ? step.reason : s.deleting ? 'Deleting' : step.kind;
  const message = blocked ? step.message : `next: ${step.kind}`;
  const current = getCondition(s.status.conditions, Conditions.VMProvisioned);
  if (!(step.kind === 'WaitForVCD' && waitKeepsConditions(current, reason, s.deleting)))
    notReady(s.status, s.vcdMachine, s.deleting, reason, message);
  // Blocked waits on a person (or the CSI driver): a minute, scaled with the recheck in tests.
  if (step.kind === 'Blocked') return { requeueAfter: Math.min(60_000, 20 * recheckMs) };
  // ±25 %, so machines waiting on one busy vApp do not all look again at once.
  return { requeueAfter: s.status.task ? pollMs : jittered(recheckMs) };
}

/**
 * The machine's task still runs: said in VMProvisioned (unless it names the operation already),
 * looked at again in `pollAfterMs`.
 */
export function taskRuns(s: MachineScope, pollAfterMs: number): Result {
  const operation = s.status.task?.operation ?? 'Working';
  const current = getCondition(s.status.conditions, Conditions.VMProvisioned);
  if (!pollKeepsCondition(current, operation))
    condition(s.status, s.vcdMachine, Conditions.VMProvisioned, false, operation, 'waiting for the VCD task');
  return { requeueAfter: pollAfterMs };
}
