/**
 * Something the manager runs: a controller, a server, a periodic job. `start` runs until `signal`
 * aborts, then cleans up and resolves; rejecting means the runnable failed, and the manager stops.
 */
export interface Runnable {
  /** For logs. */
  readonly name: string;
  start(signal: AbortSignal): Promise<void>;
}

/**
 * When and where a runnable runs:
 * - `leader` (controllers, the default): on the leader only, once the caches have synced;
 * - `always`: on every replica, once the caches have synced;
 * - `server`: on every replica from the start, before the caches sync: servers that something
 *   else may wait on (a webhook server: a conversion webhook must answer before a cache of its
 *   kind can sync).
 */
export type RunnableScope = 'leader' | 'always' | 'server';
