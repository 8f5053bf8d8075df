import { type Clock, realClock, type TimerHandle } from '@capstan/runtime';
import { StatusReporter } from './reporter.js';
import type { RebootNeededSource, SourceStatus } from './source.js';

/** The outcome of one check: a status, or an error message meaning "cannot tell now". */
export type CheckResult = { ok: Omit<SourceStatus, 'error'> } | { error: string };

/**
 * A source that checks something every `intervalMs` on `clock` (the runtime's: any interval is
 * safe there, and tests move virtual time). The next check is scheduled only after the previous
 * one finished, so a slow check never overlaps itself.
 */
export abstract class PollingSource implements RebootNeededSource {
  private reporter: StatusReporter | undefined;
  private timer: TimerHandle | undefined;
  private inFlight: Promise<void> | undefined;
  private abort: AbortController | undefined;

  protected constructor(
    private readonly intervalMs: number,
    protected readonly clock: Clock = realClock,
  ) {
    if (!(intervalMs > 0)) throw new RangeError(`poll interval must be positive, got ${intervalMs}`);
  }

  /** One check; must not throw (but a throw is reported as an error status). */
  protected abstract check(signal: AbortSignal): Promise<CheckResult>;

  async start(onChange: (status: SourceStatus) => void): Promise<void> {
    if (this.reporter) throw new Error('source already started');
    this.reporter = new StatusReporter(onChange);
    this.abort = new AbortController();
    await this.runOnce();
  }

  async stop(): Promise<void> {
    this.reporter?.close();
    this.abort?.abort();
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
    this.reporter = undefined;
  }

  private runOnce(): Promise<void> {
    const reporter = this.reporter;
    const abort = this.abort;
    if (!reporter || !abort || abort.signal.aborted) return Promise.resolve();
    this.inFlight = (async () => {
      let result: CheckResult;
      try {
        result = await this.check(abort.signal);
      } catch (err) {
        result = { error: err instanceof Error ? err.message : String(err) };
      }
      if (abort.signal.aborted) return;
      if ('ok' in result) reporter.ok(result.ok);
      else reporter.error(result.error);
      this.timer = this.clock.setTimeout(() => void this.runOnce(), this.intervalMs);
    })();
    return this.inFlight;
  }
}
