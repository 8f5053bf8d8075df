/**
 * A replica of the Greeting example as a user runs it: `node dist/main.js` with the standard
 * flags, in a child process that cannot outlive the test worker, its output kept for assertions.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built main the replicas run (`npx tsc -b` first). */
export const mainJs = fileURLToPath(new URL('../dist/main.js', import.meta.url));
/** The leader election ID (and Lease name) the replicas share. */
export const LEASE_ID = 'greeting-controller';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** `Date.now()` when this process saw the child exit. */
  at: number;
}

const live = new Set<ChildProcess>();
// Last resort on a normal exit of the test worker; the watchdogs cover a crash or a SIGKILL.
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** One `node dist/main.js` replica, its output kept for assertions and failure messages. */
export class Replica {
  readonly exited: Promise<Exit>;
  exit: Exit | undefined;
  private output = '';

  private constructor(
    readonly name: string,
    readonly metricsPort: number,
    readonly probesPort: number,
    private readonly child: ChildProcess,
  ) {
    live.add(child);
    const append = (chunk: Buffer) => {
      this.output += chunk.toString('utf8');
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    // A child that cannot start (ENOENT, ...) emits 'error' and no 'exit'.
    const spawnFailed = new Promise<Exit>((resolve) =>
      child.once('error', (err) => {
        this.output += `\n[spawn error] ${err.message}\n`;
        resolve({ code: null, signal: null, at: Date.now() });
      }),
    );
    const exited = new Promise<Exit>((resolve) =>
      // 'close' (not 'exit'): by then every byte of stdout and stderr has been read.
      child.once('close', (code, signal) => resolve({ code, signal, at: Date.now() })),
    );
    this.exited = Promise.race([exited, spawnFailed]).then((exit) => {
      this.exit = exit;
      live.delete(child);
      return exit;
    });
  }

  /** Starts `node dist/main.js` with the standard flags a user would pass. */
  static start(
    name: string,
    metricsPort: number,
    probesPort: number,
    namespace: string,
    kubeconfigPath: string,
  ): Replica {
    const args = [
      mainJs,
      '--kubeconfig',
      kubeconfigPath,
      '--namespace',
      namespace,
      '--leader-elect',
      '--leader-election-id',
      LEASE_ID,
      '--leader-election-namespace',
      namespace,
      '--metrics-bind-address',
      `127.0.0.1:${metricsPort}`,
      '--health-probe-bind-address',
      `127.0.0.1:${probesPort}`,
      '--log-level',
      'info',
      '--log-format',
      'json',
    ];
    // Nothing from the test runner's environment decides what the controller talks to or loads.
    const { NODE_OPTIONS: _o, KUBECONFIG: _k, POD_NAMESPACE: _p, ...childEnv } = process.env;
    const child = spawn(process.execPath, args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    const stopWatchdog = child.pid === undefined ? () => {} : watchdog(child.pid);
    const replica = new Replica(name, metricsPort, probesPort, child);
    void replica.exited.then(stopWatchdog);
    return replica;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The log lines that parse as JSON. */
  logs(): Array<Record<string, unknown>> {
    const lines: Array<Record<string, unknown>> = [];
    for (const line of this.output.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // a partial last line, or not ours
      }
    }
    return lines;
  }

  /** The identity it campaigns under, from its leader election log lines. */
  identity(): string | undefined {
    const line = this.logs().find((l) => typeof l.identity === 'string');
    return line?.identity as string | undefined;
  }

  logged(msg: string): boolean {
    return this.logs().some((l) => l.msg === msg);
  }

  tail(lines = 40): string {
    return this.output.trimEnd().split('\n').slice(-lines).join('\n');
  }

  describe(): string {
    const state = this.exit
      ? `exited code=${this.exit.code} signal=${this.exit.signal}`
      : `running pid=${this.pid}`;
    return `--- replica ${this.name} (${state}, metrics :${this.metricsPort}, probes :${this.probesPort}, identity ${this.identity()})\n${this.tail()}`;
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.exit) this.child.kill(signal);
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it is gone. */
  async stop(graceMs = 15_000): Promise<void> {
    if (this.exit) return;
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** GET on one of its servers; `undefined` status when nothing answered. */
  async get(port: number, path: string): Promise<{ status: number | undefined; body: string }> {
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5_000) });
      return { status: res.status, body: await res.text() };
    } catch (err) {
      return { status: undefined, body: String(err) };
    }
  }

  async metrics(): Promise<string> {
    const { status, body } = await this.get(this.metricsPort, '/metrics');
    if (status !== 200) throw new Error(`/metrics of ${this.name}: ${status} ${body}`);
    return body;
  }
}

/**
 * Kills `pid` if this test worker dies without stopping it (a crash, SIGKILL), as envtest does for
 * its binaries. Returns what ends the watchdog itself, once the child is gone.
 */
function watchdog(pid: number): () => void {
  const script = 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; kill -9 "$2" 2>/dev/null';
  const dog = spawn('sh', ['-c', script, 'watchdog', String(process.pid), String(pid)], {
    detached: true,
    stdio: 'ignore',
  });
  dog.unref();
  return () => dog.kill('SIGKILL');
}
