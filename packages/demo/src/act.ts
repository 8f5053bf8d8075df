/**
 * What every act of the demo shares: the view, the log, the interrupt, the deadline, the faults
 * the simulation met, and the clean-ups to run (in reverse) however the run ends.
 */
import type { Logger, Manager } from '@capstan/runtime';
import { clock, type LiveView } from './view.js';

/** The run's context, handed to each act. */
export class ActContext {
  /** Things that went wrong in the simulation itself (each fails the run). */
  readonly faults: string[] = [];
  /** Rejects with `interrupted` when the signal fires: a wait or an act races it to stop at once. */
  readonly interrupted: Promise<never>;
  private readonly cleanups: Array<() => Promise<unknown>> = [];
  private deadline = Number.POSITIVE_INFINITY;
  private ended = false;

  constructor(
    readonly view: LiveView,
    readonly logger: Logger,
    readonly timeoutMs: number,
    readonly signal: AbortSignal | undefined,
    readonly started = Date.now(),
  ) {
    this.interrupted = new Promise<never>((_, reject) => {
      const stop = () => reject(new Error('interrupted'));
      if (signal?.aborted) stop();
      else signal?.addEventListener('abort', stop, { once: true });
    });
    this.interrupted.catch(() => {});
  }

  /** Starts the timeout (once the first control plane is up: a first run builds binaries for minutes). */
  startClock(): void {
    if (this.deadline === Number.POSITIVE_INFINITY) this.deadline = Date.now() + this.timeoutMs;
  }

  /** Records a fault of the simulation (the run then fails). */
  fault(what: string, err: unknown): void {
    this.faults.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
    this.logger.error({ err }, what);
  }

  /**
   * Runs `cleanup` when the run ends, before those registered earlier; at once if it has ended
   * (an act interrupted mid-step may still be starting something).
   */
  onEnd(cleanup: () => Promise<unknown>): void {
    if (this.ended) void cleanup().catch(() => {});
    else this.cleanups.push(cleanup);
  }

  /**
   * Runs an operator's manager for the rest of the run, as its Deployment would: a failure is a
   * fault of the run, and the run's end stops it (then `afterStop`, e.g. closing VCD sessions).
   */
  runManager(what: string, manager: Manager, afterStop: () => void = () => {}): void {
    const stop = new AbortController();
    const running = manager.start(stop.signal).catch((err) => this.fault(what, err));
    this.onEnd(async () => {
      stop.abort();
      await running;
      afterStop();
    });
  }

  /** Throws if the run was interrupted. */
  checkInterrupt(): void {
    if (this.signal?.aborted) throw new Error('interrupted');
  }

  /**
   * Polls `done` every 250 ms, calling `tick` between polls (to redraw the view), until it holds;
   * throws on a fault, an interrupt or the deadline (or `until`, when sooner).
   */
  async waitUntil(
    what: string,
    done: () => boolean | Promise<boolean>,
    tick: () => void | Promise<void> = () => {},
    until = Number.POSITIVE_INFINITY,
  ): Promise<void> {
    const end = Math.min(this.deadline, until);
    const late = () => new Error(`timed out at ${clock(this.elapsed())} waiting for ${what}`);
    for (;;) {
      // A look that hangs (a request never answered) ends at the deadline too, a second past it
      // so a look under way at the deadline may still answer.
      let timer: NodeJS.Timeout | undefined;
      const overdue = Number.isFinite(end)
        ? new Promise<'late'>((resolve) => {
            timer = setTimeout(() => resolve('late'), Math.max(0, end - Date.now()) + 1_000);
          })
        : new Promise<never>(() => {});
      const seen = await Promise.race([done(), this.interrupted, overdue]).finally(() => clearTimeout(timer));
      if (seen === 'late') throw late();
      if (seen) return;
      if (this.faults.length > 0) throw new Error(this.faults[0]);
      this.checkInterrupt();
      if (Date.now() > end) throw late();
      await tick();
      await delay(250);
    }
  }

  /** Elapsed since the run started. */
  elapsed(): number {
    return Date.now() - this.started;
  }

  /**
   * Runs the clean-ups, newest first; each one's failure is ignored, and one that hangs (a manager
   * whose apiserver a terminal's Ctrl-C already killed) is left after 15 s (5 s once interrupted) so the processes still stop.
   */
  async end(): Promise<void> {
    this.ended = true;
    const capMs = this.signal?.aborted ? 5_000 : 15_000;
    for (const cleanup of this.cleanups.splice(0).reverse())
      await Promise.race([cleanup().catch(() => {}), delay(capMs)]);
  }
}

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
