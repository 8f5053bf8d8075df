/**
 * The task state machine, pure:
 *
 *   queued ──start──▶ running ──succeed──▶ success
 *      │                 │  └───fail────▶ error
 *      └──abort/fail──┐  └────abort─────▶ aborted
 *                     ▼
 *               aborted | error
 *
 * Terminal states (success, error, aborted) absorb every event. Progress only grows, stays in
 * 0..100, and is 100 exactly when the task succeeded.
 */

export type TaskStatus = 'queued' | 'preRunning' | 'running' | 'success' | 'error' | 'aborted';

/** The part of a task the state machine decides. */
export interface TaskState {
  status: TaskStatus;
  progress: number;
  error?: { status: number; minorErrorCode: string; message: string };
  cancelRequested: boolean;
}

export type TaskEvent =
  | { type: 'start' }
  | { type: 'progress'; percent: number }
  | { type: 'succeed' }
  | { type: 'fail'; error: { status: number; minorErrorCode: string; message: string } }
  | { type: 'cancel' }
  | { type: 'abort' };

/** True for success, error and aborted. */
export const isTerminal = (s: TaskStatus): boolean => s === 'success' || s === 'error' || s === 'aborted';

/** The state after an event. Events that do not apply leave the state unchanged. */
export function step(state: TaskState, event: TaskEvent): TaskState {
  if (isTerminal(state.status)) return state;
  switch (event.type) {
    case 'start':
      return state.status === 'running' ? state : { ...state, status: 'running' };
    case 'progress': {
      if (state.status !== 'running') return state;
      const percent = Math.min(99, Math.max(state.progress, Math.floor(event.percent)));
      return Number.isFinite(percent) ? { ...state, progress: percent } : state;
    }
    case 'succeed':
      return state.status === 'running' ? { ...state, status: 'success', progress: 100 } : state;
    case 'fail':
      return { ...state, status: 'error', error: event.error };
    case 'cancel':
      return { ...state, cancelRequested: true };
    case 'abort':
      return {
        ...state,
        status: 'aborted',
        error: { status: 500, minorErrorCode: 'TASK_ABORTED', message: 'The task was aborted by the user.' },
      };
  }
}
