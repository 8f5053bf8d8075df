/**
 * The reboot methods besides logind (the default, `dbus/logind.ts`): a command run on the host
 * (`systemctl reboot`, a kexec, a soft-reboot) and a signal to the host's PID 1 (systemd reboots
 * on SIGRTMIN+5, as kured's `--reboot-method=signal` uses). A failure throws
 * {@link RebootFailedError}, surfaced as logind's are (event, annotation, metric).
 */
import { spawn } from 'node:child_process';
import { type Clock, realClock } from '@capstan/runtime';
import { RebootFailedError } from './dbus/reboot-failed-error.js';
import { type HostNamespaces, hostArgv } from './host-namespaces.js';
import type { Rebooter } from './reconciler.js';

/** The reboot methods `--reboot-method` takes. */
export const REBOOT_METHODS = ['logind', 'command', 'signal'] as const;
export type RebootMethod = (typeof REBOOT_METHODS)[number];

/** systemd's reboot signal: SIGRTMIN+5, 39 with glibc's SIGRTMIN of 34. */
export const SYSTEMD_REBOOT_SIGNAL = 39;

/** Options of {@link CommandRebooter}. */
export interface CommandRebooterOptions {
  /** Program and arguments, e.g. `['systemctl', 'reboot']`. */
  command: readonly string[];
  /** Run it in the host's namespaces (nsenter); absent: in the container. */
  hostNamespaces?: HostNamespaces;
  /** A run taking longer is a failure; default 60 s. */
  timeoutMs?: number;
  clock?: Clock;
}

/** Reboots by running a command; exit 0 means the reboot was accepted (it may be killed on the way down). */
export class CommandRebooter implements Rebooter {
  private readonly argv: string[];
  private readonly timeoutMs: number;
  private readonly clock: Clock;

  constructor(private readonly options: CommandRebooterOptions) {
    if (options.command.length === 0 || !options.command[0]) throw new RangeError('reboot command is empty');
    this.argv = hostArgv(options.command, options.hostNamespaces);
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.clock = options.clock ?? realClock;
  }

  /** The program and arguments actually run. */
  get commandLine(): readonly string[] {
    return this.argv;
  }

  reboot(): Promise<void> {
    const shown = this.options.command.join(' ');
    const [program, ...args] = this.argv as [string, ...string[]];
    return new Promise((resolve, reject) => {
      const fail = (why: string) =>
        reject(new RebootFailedError(`reboot command ${shown} ${why}`, 'command-failed'));
      const child = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => {
        if (stderr.length < 2_000) stderr += d.toString();
      });
      const timer = this.clock.setTimeout(() => {
        child.kill('SIGKILL');
        fail(`did not finish within ${this.timeoutMs} ms`);
      }, this.timeoutMs);
      child.once('error', (err) => {
        this.clock.clearTimeout(timer);
        fail(`failed to run: ${err.message}`);
      });
      child.once('close', (code, signal) => {
        this.clock.clearTimeout(timer);
        if (code === 0) resolve();
        else
          fail(
            `${code === null ? `was killed by ${signal}` : `exited ${code}`}${stderr ? `: ${stderr.trim()}` : ''}`,
          );
      });
    });
  }
}

/** Options of {@link SignalRebooter}. */
export interface SignalRebooterOptions {
  /** The signal number; default {@link SYSTEMD_REBOOT_SIGNAL}. */
  signal?: number;
  /** The process signalled; default 1 (the host's init, with `hostPID`). Tests name their own. */
  targetPid?: number;
}

/** Reboots by signalling the host's init (needs `hostPID` and CAP_KILL). */
export class SignalRebooter implements Rebooter {
  readonly signal: number;
  readonly targetPid: number;

  constructor(options: SignalRebooterOptions = {}) {
    this.signal = options.signal ?? SYSTEMD_REBOOT_SIGNAL;
    this.targetPid = options.targetPid ?? 1;
    if (!Number.isInteger(this.signal) || this.signal < 1 || this.signal > 64)
      throw new RangeError(`reboot signal must be 1-64, got ${this.signal}`);
  }

  async reboot(): Promise<void> {
    // Without hostPID the agent is PID 1 of its own namespace: it would signal itself.
    if (this.targetPid === process.pid)
      throw new RebootFailedError(
        `PID ${this.targetPid} is the agent itself, not the host's init: the pod needs hostPID`,
        'signal-failed',
      );
    try {
      process.kill(this.targetPid, this.signal);
    } catch (err) {
      throw new RebootFailedError(
        `cannot send signal ${this.signal} to PID ${this.targetPid}: ${(err as Error).message}${this.targetPid === 1 ? ' (the pod needs hostPID and CAP_KILL)' : ''}`,
        'signal-failed',
      );
    }
  }
}
