/**
 * Whether a machine's VM task has ended, told by the VM itself. A VM's running tasks are listed on
 * it (VCD embeds them, and `busy` says so), and the vApp read the next step needs holds the VM: so
 * for the create path's VM tasks (reconfigure, power on) the end is looked for there, in a read
 * begun after the task was recorded, instead of a GET of the task first. The task is still read
 * whenever the VM cannot say how it ended:
 *  - the VM is busy: a task runs on it (ours, or one that keeps ours from being seen), look again;
 *  - the VM is idle and the step decided from it is past what the task did (a configured VM goes
 *    on to power on, a powered-on one to its IP): the task succeeded, nothing else could have made
 *    the VM so, and nothing is left for its outcome to tell;
 *  - anything else (the VM is gone, the step would do the task again, or waits): the task is read,
 *    so a failure is reported as its own (its event, condition and backoff), never retried blind.
 */
import type { MachineStep, ObservedVM } from './machine.js';

/** The task operations (step kinds) whose end is looked for on the VM, and the steps past each. */
const PAST: Readonly<Record<string, ReadonlySet<MachineStep['kind']>>> = {
  ConfigureVM: new Set(['PowerOn', 'WaitForIP', 'Provisioned']),
  PowerOn: new Set(['WaitForIP', 'Provisioned']),
};

/** Whether a recorded task of `operation` has its end looked for on its VM. */
export const endSeenOnVm = (operation: string | undefined): boolean =>
  operation !== undefined && Object.hasOwn(PAST, operation);

/** What the VM says of the task: still running, succeeded, or read the task to know. */
export type VmTaskEnd = 'running' | 'succeeded' | 'readTask';

/** What `vm` (from a read begun after the task of `operation` was recorded) and the step decided from it say. */
export function vmTaskEnd(operation: string, vm: ObservedVM | undefined, step: MachineStep): VmTaskEnd {
  if (!vm) return 'readTask';
  if (vm.busy) return 'running';
  return PAST[operation]?.has(step.kind) ? 'succeeded' : 'readTask';
}
