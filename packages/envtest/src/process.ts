import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

const live = new Set<ChildProcess>();

// Last resort on a normal exit: whatever is still running dies with us.
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * A control-plane binary run as a child process, its output appended to a log file. A detached
 * watchdog kills it if this Node process dies without stopping it (a crash, SIGKILL of a test
 * worker), so no etcd or kube-apiserver outlives a test run.
 */
export class ManagedProcess {
  private exited: Promise<number | null>;
  private exitCode: number | null | undefined;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    watchdog: ChildProcess,
    readonly logFile: string,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? -1 : null);
        live.delete(child);
        watchdog.kill('SIGKILL');
        resolve(code);
      });
    });
  }

  /** Starts `binary` with `args`, logging to `logFile`. */
  static start(name: string, binary: string, args: string[], logFile: string): ManagedProcess {
    const fd = openSync(logFile, 'a');
    const child = spawn(binary, args, { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    if (child.pid === undefined) throw new Error(`could not start ${name} (${binary})`);
    live.add(child);
    const watchdog = spawn(
      'sh',
      [
        '-c',
        'while kill -0 "$1" 2>/dev/null; do sleep 1; done; kill -9 "$2" 2>/dev/null',
        'watchdog',
        String(process.pid),
        String(child.pid),
      ],
      { detached: true, stdio: 'ignore' },
    );
    watchdog.unref();
    return new ManagedProcess(name, child, watchdog, logFile);
  }

  /** The process id. */
  get pid(): number {
    return this.child.pid as number;
  }

  /** Whether the process has exited. */
  get hasExited(): boolean {
    return this.exitCode !== undefined;
  }

  /** The last lines of its log, for error messages. */
  tail(lines = 30): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.hasExited) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
