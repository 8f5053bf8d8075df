/**
 * Something the manager runs: a controller, a server, a periodic job. `start` runs until `signal`
 * aborts, then cleans up and resolves; rejecting means the runnable failed, and the manager stops.
 */
export interface Runnable {
  /** For logs. */
  readonly name: string;
  start(signal: AbortSignal): Promise<void>;
}

/** Where a runnable may run: only on the leader (controllers, by default) or on every replica. */
export type RunnableScope = 'leader' | 'always';
