import type { Logger } from '../log/logger.js';
import { LeadershipLostError, type Manager } from './manager.js';

/** An AbortSignal aborted by the first SIGTERM or SIGINT; a second one exits at once. */
export function signalOnTerminate(): AbortSignal {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort(new Error(`received ${name}`));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return controller.signal;
}

/**
 * Runs a manager as a process's main job: starts it with {@link signalOnTerminate}, exits 0 after a
 * graceful stop, 1 when it failed (a runnable failed, the caches never synced, the lease was lost).
 */
export async function runManager(manager: Manager, log: Logger = manager.logger): Promise<never> {
  // Every timer of the runtime is unref'd; with no server listening (metrics and probes off) and
  // the API server unreachable, nothing else would keep the process alive while it retries.
  const keepAlive = setInterval(() => {}, 2 ** 30);
  try {
    await manager.start(signalOnTerminate());
    clearInterval(keepAlive);
    process.exit(0);
  } catch (err) {
    log.error({ err }, err instanceof LeadershipLostError ? 'leadership lost: exiting' : 'manager failed');
    process.exit(1);
  }
}
