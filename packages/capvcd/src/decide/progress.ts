/**
 * Which condition changes of a machine being made are worth a status write. Each VCDMachine status
 * write sets off a Cluster API Machine reconcile, and that a Machine status patch (issue 48: at 100
 * machines the API server's CPU binds, mostly on those patches and their conflicts). Two kinds of
 * change tell a reader nothing new, and leave the condition as it stands:
 *  - a wait on the vApp's other work (`VAppBusy`: a sibling's task, the queue for the next
 *    recompose) while the condition already says the machine's making is under way: the wait is
 *    part of it, only its wording (whose task, how many wait) would change;
 *  - a poll of a running task, once the condition names the task's operation.
 * Anything else is written: a failure (any other reason), the first wait after one, a provisioned
 * machine (the condition True), and every step of a deletion.
 */

/** What a decision reads of a condition. */
export interface ConditionState {
  status: string;
  reason: string;
}

/** The reasons of a machine's making under way: its steps, their tasks, and its waits on the vApp. */
export const UNDER_WAY: ReadonlySet<string> = new Set([
  'VAppBusy',
  'CreateVApp',
  'CreateVM',
  'ConfigureVM',
  'PowerOn',
  'WaitForIP',
  'WaitForTask',
]);

/**
 * Whether a wait for `reason` leaves the machine's VMProvisioned condition (`current`) and its
 * Ready summary as they are (see the file comment).
 */
export function waitKeepsConditions(
  current: ConditionState | undefined,
  reason: string,
  deleting: boolean,
): boolean {
  return !deleting && reason === 'VAppBusy' && current?.status === 'False' && UNDER_WAY.has(current.reason);
}

/** Whether a poll of the running task `operation` leaves VMProvisioned (`current`) as it is. */
export function pollKeepsCondition(current: ConditionState | undefined, operation: string): boolean {
  return current?.status === 'False' && current.reason === operation;
}
