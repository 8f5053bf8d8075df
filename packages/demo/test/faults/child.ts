/**
 * A built operator main (`node [options] dist/main.js ...`) in a child process, as a pod runs it:
 * its output kept in a log file (and the last lines in memory for failure messages), SIGTERM to
 * stop it gracefully, SIGKILL to kill it as an OOM or a crashed node would. Children never outlive
 * the test worker: every live one is killed on its exit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** How a child ended. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One operator process. */
export class OperatorProcess {
  readonly exited: Promise<ChildExit>;
  exit: ChildExit | undefined;
  /** Every line containing `mark` (kept however long the log grows). */
  readonly marked: string[] = [];
  private tail: string[] = [];
  private readonly child: ChildProcess;

  constructor(
    readonly name: string,
    main: string,
    args: string[],
    private readonly logFile: string,
    mark?: string,
    /** Node.js options before the main, as the operator's image passes them. */
    nodeOptions: readonly string[] = [],
  ) {
    this.child = spawn(process.execPath, [...nodeOptions, main, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(this.child);
    const keep = (line: string) => {
      appendFileSync(this.logFile, `${name}: ${line}\n`);
      if (mark && line.includes(mark)) this.marked.push(line);
      this.tail.push(line);
      if (this.tail.length > 40) this.tail.shift();
    };
    if (this.child.stdout) createInterface({ input: this.child.stdout }).on('line', keep);
    if (this.child.stderr) createInterface({ input: this.child.stderr }).on('line', keep);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        live.delete(this.child);
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
  }

  /** Whether the process still runs. */
  get running(): boolean {
    return this.exit === undefined;
  }

  /** The process's log lines seen so far (the last 40), for failure messages. */
  get lastLines(): string[] {
    return [...this.tail];
  }

  /** Sends `signal` and waits for the exit (SIGKILL after `graceMs` if it has not exited). */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 20_000): Promise<ChildExit> {
    if (this.exit) return this.exit;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
