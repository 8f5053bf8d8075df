import { spawn } from 'node:child_process';
import type { Clock } from '@capstan/runtime';
import { type CheckResult, PollingSource } from './polling-source.js';

/** Options for {@link SentinelCommandSource}. */
export interface SentinelCommandSourceOptions {
  /** Program and arguments, run without a shell, e.g. `['test', '-f', '/var/run/reboot-required']`. */
  command: readonly string[];
  /** Poll interval; default 10 s. */
  intervalMs?: number;
  /** A run taking longer is killed and reported as an error; default 30 s. */
  timeoutMs?: number;
  /** The clock the poll and the timeout run on; default the wall clock. */
  clock?: Clock;
}

/**
 * Reboot needed while a command exits 0; any other exit code means not needed. A command that
 * cannot be started, is killed by a signal or times out gives an error status instead.
 */
export class SentinelCommandSource extends PollingSource {
  private readonly command: readonly string[];
  private readonly timeoutMs: number;

  constructor(options: SentinelCommandSourceOptions) {
    super(options.intervalMs ?? 10_000, options.clock);
    if (options.command.length === 0 || !options.command[0])
      throw new RangeError('sentinel command is empty');
    this.command = [...options.command];
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  protected override check(signal: AbortSignal): Promise<CheckResult> {
    const [program, ...args] = this.command as [string, ...string[]];
    const shown = this.command.join(' ');
    return new Promise((resolve) => {
      let timedOut = false;
      // Its own process group, so a timeout also kills whatever the command started.
      const child = spawn(program, args, { stdio: 'ignore', detached: true });
      const killGroup = () => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      };
      const timer = this.clock.setTimeout(() => {
        timedOut = true;
        killGroup();
      }, this.timeoutMs);
      signal.addEventListener('abort', killGroup, { once: true });
      child.once('error', (err) => {
        this.clock.clearTimeout(timer);
        signal.removeEventListener('abort', killGroup);
        // 'close' may not follow a spawn error; resolving twice is harmless.
        resolve({ error: `sentinel command ${shown} failed to run: ${err.message}` });
      });
      child.once('close', (code, killedBy) => {
        this.clock.clearTimeout(timer);
        signal.removeEventListener('abort', killGroup);
        if (timedOut) resolve({ error: `sentinel command ${shown} timed out after ${this.timeoutMs} ms` });
        else if (code === null) resolve({ error: `sentinel command ${shown} was killed by ${killedBy}` });
        else resolve({ ok: { rebootNeeded: code === 0 } });
      });
    });
  }
}
