/**
 * The recorded-task protocol both reconcilers follow: a write's task is written into status; the
 * next reconcile reads it once (one GET) and either comes back later (still running, polled less
 * often the longer it runs) or clears it (ended; a failure is reported and backed off).
 */
import type { Clock, EventRecorder, KubeObject, ResourceType } from '@capstan/runtime';
import type { TaskRef } from './api/types.js';
import type { CapvcdMetrics } from './metrics.js';
import { DEFAULT_TASK_READ_SHARING, SharedTaskReads } from './task-reads.js';
import { type Task, taskRunning, type VcdClient } from './vcd/client.js';
import { VcdError } from './vcd/errors.js';

/** How often a running task is looked at: a quarter of its age, within these bounds. */
export interface TaskPolling {
  minMs: number;
  maxMs: number;
}

export const DEFAULT_TASK_POLLING: TaskPolling = { minMs: 1000, maxMs: 15_000 };

/** What became of a recorded task. */
export type TaskOutcome =
  | { kind: 'none' }
  | { kind: 'running'; pollAfterMs: number }
  | { kind: 'succeeded'; result?: string }
  | { kind: 'failed'; error: VcdError };

/** The delay before looking at a task again. */
export function pollDelay(startedAt: string, now: number, polling: TaskPolling): number {
  const age = Math.max(0, now - Date.parse(startedAt));
  return Math.min(polling.maxMs, Math.max(polling.minMs, Math.round(age / 4)));
}

/** Reads the recorded task (if any) once. A task VCD no longer knows counts as ended. */
export async function checkTask(
  vcd: VcdClient,
  ref: TaskRef | undefined,
  now: number,
  polling: TaskPolling,
  metrics?: CapvcdMetrics,
  read: (vcd: VcdClient, href: string) => Promise<Task> = (c, href) => c.task(href),
): Promise<TaskOutcome> {
  if (!ref) return { kind: 'none' };
  let task: Task;
  try {
    task = await read(vcd, ref.href);
  } catch (err) {
    if (err instanceof VcdError && err.notFound) return { kind: 'succeeded' }; // expired: judge by what VCD shows
    throw err;
  }
  if (taskRunning(task)) return { kind: 'running', pollAfterMs: pollDelay(ref.startedAt, now, polling) };
  observeTaskDuration(metrics, ref, task.status, now);
  if (task.status === 'success')
    return { kind: 'succeeded', ...(task.result ? { result: task.result } : {}) };
  return {
    kind: 'failed',
    error: task.error ?? new VcdError(500, 'TASK_FAILED', `${ref.operation} ended ${task.status}`),
  };
}

/** Measures a recorded task that ended as `result`, from its start to `now`. */
function observeTaskDuration(metrics: CapvcdMetrics | undefined, ref: TaskRef, result: string, now: number) {
  const seconds = Math.max(0, (now - Date.parse(ref.startedAt)) / 1000);
  metrics?.taskDuration.observe({ operation: ref.operation, result }, seconds);
}

/** The status record of a task just started. */
export const taskRef = (task: Task, operation: string, now: number): TaskRef => ({
  href: task.href,
  operation,
  startedAt: new Date(now).toISOString(),
});

/**
 * A recorded task's turn in a reconcile: still running (look again then), or out of the way (the
 * task that just ended, with its operation and what it returned).
 */
export type TaskTurn =
  | { running: true; pollAfterMs: number }
  | {
      running: false;
      endedHref?: string;
      endedOperation?: string;
      result?: string;
      /** When VCD answered that the task had ended (the clock's ms): the task ended before then. */
      endedSeenAt?: number;
    };

/** What {@link RecordedTasks} works with: the reconciler's clock, events and metrics. */
export interface RecordedTasksDeps {
  clock: Clock;
  events: EventRecorder;
  metrics?: CapvcdMetrics;
  polling?: TaskPolling;
}

/**
 * The protocol for one reconciler, on its clock: stamps tasks as they start, takes their turn.
 * Objects that recorded one task (a batch's members) share its reads ({@link SharedTaskReads}).
 */
export class RecordedTasks {
  readonly polling: TaskPolling;
  private readonly reads: SharedTaskReads;

  constructor(private readonly deps: RecordedTasksDeps) {
    this.polling = deps.polling ?? DEFAULT_TASK_POLLING;
    // A running task's read is believed for half the shortest poll: a member learns of its end that late at most.
    this.reads = new SharedTaskReads(deps.clock, {
      ...DEFAULT_TASK_READ_SHARING,
      runningMs: this.polling.minMs / 2,
    });
  }

  /** The status record of `task`, just started by `operation`, stamped now. */
  record(task: Task, operation: string): TaskRef {
    return taskRef(task, operation, this.deps.clock.now());
  }

  /**
   * The recorded task was seen ended by the VM it changed (see `decide/vm-task-end.ts`): cleared as
   * a success, its duration measured to now; the task that ended, if one was recorded.
   */
  succeededOnVm(status: { task?: TaskRef }): TaskRef | undefined {
    const ended = status.task;
    if (!ended) return undefined;
    delete status.task;
    observeTaskDuration(this.deps.metrics, ended, 'success', this.deps.clock.now());
    return ended;
  }

  /**
   * Reads the task recorded in `status` (if any). Once it ended it is cleared from `status`; a
   * failure is also a TaskFailed event on `object`, then thrown (its condition is the caller's).
   */
  async turn<T extends KubeObject>(
    vcd: VcdClient,
    type: ResourceType<T>,
    object: T,
    status: { task?: TaskRef },
  ): Promise<TaskTurn> {
    const { clock, events, metrics } = this.deps;
    let seenAt: number | undefined;
    const outcome = await checkTask(vcd, status.task, clock.now(), this.polling, metrics, async (c, href) => {
      const read = await this.reads.read(c, href);
      seenAt = read.receivedAt;
      return read.task;
    });
    if (outcome.kind === 'running') return { running: true, pollAfterMs: outcome.pollAfterMs };
    const ended = status.task;
    delete status.task;
    if (outcome.kind === 'failed') {
      events.record(type, object, {
        type: 'Warning',
        reason: 'TaskFailed',
        action: ended?.operation ?? 'Task',
        note: outcome.error.message,
      });
      throw outcome.error;
    }
    return {
      running: false,
      ...(ended ? { endedHref: ended.href, endedOperation: ended.operation } : {}),
      ...(ended && seenAt !== undefined ? { endedSeenAt: seenAt } : {}),
      ...(outcome.kind === 'succeeded' && outcome.result ? { result: outcome.result } : {}),
    };
  }
}
