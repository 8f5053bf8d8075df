import { spawn } from 'node:child_process';
import type { Clock } from '@capstan/runtime';
import { type HostNamespaces, hostArgv } from '../host-namespaces.js';
import { type CheckResult, PollingSource } from './polling-source.js';

/** Options for {@link SentinelCommandSource}. */
export interface SentinelCommandSourceOptions {
  /** Program and arguments, run without a shell, e.g. `['needs-restarting', '-r']`. */
  command: readonly string[];
  /** Poll interval; default 10 s. */
  intervalMs?: number;
  /** A run taking longer is killed and reported as an error; default 30 s. */
  timeoutMs?: number;
  /** The clock the poll and the timeout run on; default the wall clock. */
  clock?: Clock;
  /** Run it on the host (mount, UTS, IPC, network and PID namespaces of `targetPid`); default in the container. */
  hostNamespaces?: HostNamespaces;
  /** Exit codes meaning "reboot needed"; default `[0]` (kured's convention). */
  neededExitCodes?: readonly number[];
  /** Exit codes meaning "not needed"; default every code not in `neededExitCodes`. Others are errors. */
  notNeededExitCodes?: readonly number[];
}

/** What an exit code says: needed, not needed, or (outside both lists when the second is given) an error. */
export function exitVerdict(
  code: number,
  needed: readonly number[],
  notNeeded: readonly number[] | undefined,
): 'needed' | 'not-needed' | 'unexpected' {
  if (needed.includes(code)) return 'needed';
  if (notNeeded === undefined || notNeeded.includes(code)) return 'not-needed';
  return 'unexpected';
}

/**
 * Reboot needed while a command exits with one of `neededExitCodes` (default 0); e.g. RHEL's
 * `needs-restarting -r` exits 1 when a reboot is needed and 0 when not, Fedora CoreOS's
 * `rpm-ostree status --pending-exit-77` exits 77 when a deployment is staged. A command that
 * cannot be started, is killed by a signal, times out or exits with a code in neither list
 * (e.g. nsenter's 127: the command is not on the host) gives an error status instead.
 */
export class SentinelCommandSource extends PollingSource {
  private readonly argv: readonly string[];
  private readonly shown: string;
  private readonly timeoutMs: number;
  private readonly needed: readonly number[];
  private readonly notNeeded: readonly number[] | undefined;

  constructor(options: SentinelCommandSourceOptions) {
    super(options.intervalMs ?? 10_000, options.clock);
    if (options.command.length === 0 || !options.command[0])
      throw new RangeError('sentinel command is empty');
    this.argv = hostArgv(options.command, options.hostNamespaces);
    this.shown = `${options.hostNamespaces ? '(on the host) ' : ''}${options.command.join(' ')}`;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.needed = [...(options.neededExitCodes ?? [0])];
    this.notNeeded = options.notNeededExitCodes && [...options.notNeededExitCodes];
  }

  /** The program and arguments actually run. */
  get commandLine(): readonly string[] {
    return this.argv;
  }

  protected override check(signal: AbortSignal): Promise<CheckResult> {
    const [program, ...args] = this.argv as [string, ...string[]];
    const shown = this.shown;
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
        else resolve(this.verdict(code));
      });
    });
  }

  private verdict(code: number): CheckResult {
    const verdict = exitVerdict(code, this.needed, this.notNeeded);
    if (verdict !== 'unexpected') return { ok: { rebootNeeded: verdict === 'needed' } };
    return {
      error: `sentinel command ${this.shown} exited ${code}: neither "needed" (${this.needed.join(', ')}) nor "not needed" (${this.notNeeded?.join(', ')})${code === 126 || code === 127 ? ' (126/127: not executable or not found)' : ''}`,
    };
  }
}
