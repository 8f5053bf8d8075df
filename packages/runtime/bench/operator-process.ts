/**
 * An operator process started the way its workload manifest starts it (`node <entry> <args>`), with
 * its probes on a free port: wait for `/readyz` (caches synced), read its RSS, stop it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { podEnvironment } from './pod-environment.js';

/** USER_HZ, the unit of /proc's CPU times: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** The workspace's packages/ folder (the path is from bench/dist). */
export const packagesDir = fileURLToPath(new URL('../../../', import.meta.url));
/** The RebootGroup CRD, which a coordinator needs installed before its caches can sync. */
export const coordinatorCrds = join(packagesDir, 'coordinator', 'deploy', 'crds', 'rebootgroups.yaml');

/** A free TCP port on 127.0.0.1 (the OS picks it; released before the caller binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export class OperatorProcess {
  private output = '';
  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    readonly probePort: number,
  ) {
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-4000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  /**
   * Starts `node [nodeArgs] entry args --health-probe-bind-address=127.0.0.1:<free>`, with
   * `metricsOnProbePort` also `--metrics-bind-address` there (one server then serves both, for
   * {@link OperatorProcess.scrape}). With `BENCH_CPU_PROF_DIR` set, each operator process writes a
   * CPU profile there when it stops.
   */
  static async start(
    name: string,
    entry: string,
    args: string[],
    env: Record<string, string>,
    nodeArgs: readonly string[] = [],
    metricsOnProbePort = false,
  ): Promise<OperatorProcess> {
    const port = await freePort();
    const profileDir = process.env.BENCH_CPU_PROF_DIR;
    const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const address = `127.0.0.1:${port}`;
    const servers = [`--health-probe-bind-address=${address}`];
    if (metricsOnProbePort) servers.push(`--metrics-bind-address=${address}`);
    const child = spawn(process.execPath, [...profile, ...nodeArgs, entry, ...args, ...servers], {
      env: podEnvironment(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new OperatorProcess(name, child, port);
  }

  /** Reads `/metrics` whole, as Prometheus scrapes it (started with `metricsOnProbePort`). */
  async scrape(): Promise<void> {
    const response = await fetch(`http://127.0.0.1:${this.probePort}/metrics`);
    const text = await response.text();
    if (!response.ok || !text.includes('process_cpu_seconds_total'))
      throw new Error(`${this.name}: /metrics answered ${response.status}:\n${text.slice(0, 300)}`);
  }

  /** Resolves once `/readyz` answers 200; rejects when the process exits or `timeoutMs` passes. */
  async ready(timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null)
        throw new Error(`${this.name} exited ${this.child.exitCode}:\n${this.output}`);
      const ok = await fetch(`http://127.0.0.1:${this.probePort}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`${this.name} not ready after ${timeoutMs} ms:\n${this.output}`);
  }

  /** Resident set size now, from /proc (what a container's memory limit counts). */
  rssBytes(): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    const kb = Number(status.match(/^VmRSS:\s+(\d+) kB/m)?.[1]);
    if (!Number.isFinite(kb)) throw new Error(`${this.name}: no VmRSS in /proc/${this.child.pid}/status`);
    return kb * 1024;
  }

  /** The most resident memory the process has had so far (VmHWM, from /proc). */
  rssPeakBytes(): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    const kb = Number(status.match(/^VmHWM:\s+(\d+) kB/m)?.[1]);
    if (!Number.isFinite(kb)) throw new Error(`${this.name}: no VmHWM in /proc/${this.child.pid}/status`);
    return kb * 1024;
  }

  /** CPU time (user + system) the process has used so far, from /proc, in milliseconds. */
  cpuMs(): number {
    const stat = readFileSync(`/proc/${this.child.pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    if (!Number.isFinite(ticks))
      throw new Error(`${this.name}: no CPU times in /proc/${this.child.pid}/stat`);
    return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
  }

  /** SIGTERM, as the kubelet sends it; resolves when the process has exited. */
  stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill('SIGTERM');
    });
  }
}
