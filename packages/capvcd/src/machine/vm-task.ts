/**
 * The create path's VM task (reconfigure, power on) in the turn on the vApp: its end is looked for
 * on the VM in the turn's read ({@link vmTaskEnd}), and the task itself read only when the VM cannot
 * tell. A batch's members, whose reads are shared, learn of their tasks' ends in one GET.
 */
import { VCDMachineType } from '../api/types.js';
import type { MachineStep, ObservedVM } from '../decide/machine.js';
import { vmTaskEnd } from '../decide/vm-task-end.js';
import type { RecordedTasks } from '../tasks.js';
import type { MachineScope } from './scope.js';
import type { Target } from './target.js';
import type { VAppLocks } from './vapp-locks.js';

/** What {@link vmTaskTurn} works with. */
export interface VmTaskDeps {
  tasks: RecordedTasks;
  locks: VAppLocks;
}

/**
 * What the turn's read says of the machine's recorded task: undefined when there is none or it
 * succeeded (cleared: the step decided goes ahead); `WaitForTask` while it runs; once the task had
 * to be read and ended well, a look again (a failure is thrown, as a task read's is).
 */
export async function vmTaskTurn(
  deps: VmTaskDeps,
  s: MachineScope,
  t: Pick<Target, 'vappKey' | 'connection'>,
  vm: ObservedVM | undefined,
  step: MachineStep,
): Promise<MachineStep | undefined> {
  const task = s.status.task;
  if (!task) return undefined;
  const end = vmTaskEnd(task.operation, vm, step);
  if (end === 'running') return { kind: 'WaitForTask' };
  if (end === 'succeeded') {
    deps.tasks.succeededOnVm(s.status);
    deps.locks.ended(t.vappKey, task.href);
    deps.locks.release(t.vappKey, s.key);
    return undefined;
  }
  try {
    const turn = await deps.tasks.turn(t.connection.vcd, VCDMachineType, s.vcdMachine, s.status);
    if (turn.running) return { kind: 'WaitForTask' };
  } finally {
    if (!s.status.task) deps.locks.release(t.vappKey, s.key);
  }
  return {
    kind: 'WaitForVCD',
    reason: 'TaskEnded',
    message: `${task.operation} ended; the VM is read again`,
  };
}
