/**
 * The recorded-task protocol both reconcilers follow: a write's task is written into status; the
 * next reconcile reads it once (one GET) and either comes back later (still running, polled less
 * often the longer it runs) or clears it (ended; a failure is reported and backed off).
 */
import type { TaskRef } from './api/types.js';
import type { CapvcdMetrics } from './metrics.js';
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
  | { kind: 'succeeded' }
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
): Promise<TaskOutcome> {
  if (!ref) return { kind: 'none' };
  let task: Task;
  try {
    task = await vcd.task(ref.href);
  } catch (err) {
    if (err instanceof VcdError && err.notFound) return { kind: 'succeeded' }; // expired: judge by what VCD shows
    throw err;
  }
  if (taskRunning(task)) return { kind: 'running', pollAfterMs: pollDelay(ref.startedAt, now, polling) };
  const seconds = Math.max(0, (now - Date.parse(ref.startedAt)) / 1000);
  metrics?.taskDuration.observe({ operation: ref.operation, result: task.status }, seconds);
  if (task.status === 'success') return { kind: 'succeeded' };
  return {
    kind: 'failed',
    error: task.error ?? new VcdError(500, 'TASK_FAILED', `${ref.operation} ended ${task.status}`),
  };
}

/** The status record of a task just started. */
export const taskRef = (task: Task, operation: string, now: number): TaskRef => ({
  href: task.href,
  operation,
  startedAt: new Date(now).toISOString(),
});
