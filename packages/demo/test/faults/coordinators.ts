/**
 * The coordinator as its Deployment runs it: two replicas of the built coordinator main, each a
 * child process under the coordinator's service account, electing a leader on the
 * `capstan-coordinator` Lease. A replica that exits (killed, or stepping down after losing its
 * lease) is started again after a pause, as its ReplicaSet would.
 */
import { fileURLToPath } from 'node:url';
import type { Client } from '@capstan/runtime';
import { Lease } from '@capstan/runtime/client';
import { OperatorProcess } from './child.js';

/** The built main (`npm run build` first), as its image runs it. */
const COORDINATOR_MAIN = fileURLToPath(new URL('../../../coordinator/dist/main.js', import.meta.url));

/** One replica slot: its process now, its probe port and how often it was (re)started. */
interface Replica {
  name: string;
  probePort: number;
  process: OperatorProcess | undefined;
  starts: number;
  /** Exits the suite did not cause (a lost lease, a crash). */
  exits: number;
}

/** Two supervised coordinator replicas. */
export class CoordinatorReplicas {
  private readonly replicas: Replica[];
  private stopped = false;
  /** Leaders the suite killed. */
  kills = 0;

  constructor(
    private readonly options: {
      kubeconfigPath: string;
      namespace: string;
      logFile: string;
      probePorts: [number, number];
      /** More flags for both replicas. */
      args?: string[];
    },
  ) {
    this.replicas = options.probePorts.map((probePort, i) => ({
      name: `coordinator-${i}`,
      probePort,
      process: undefined,
      starts: 0,
      exits: 0,
    }));
  }

  /** Starts both replicas. */
  start(): void {
    for (const r of this.replicas) this.run(r);
  }

  /** Starts counted, over both replicas (first starts included). */
  get starts(): number {
    return this.replicas.reduce((n, r) => n + r.starts, 0);
  }

  /** Exits nobody asked for (a replica stepping down after losing its lease, or a crash). */
  get unplannedExits(): number {
    return this.replicas.reduce((n, r) => n + r.exits, 0);
  }

  /** The probe port of each running replica. */
  get probePorts(): number[] {
    return this.replicas.filter((r) => r.process?.running).map((r) => r.probePort);
  }

  /** The Lease holder's identity (one per coordinator process), if any. */
  async holder(admin: Client): Promise<string | undefined> {
    const lease = await admin
      .get(Lease, { namespace: this.options.namespace, name: 'capstan-coordinator' })
      .catch(() => undefined);
    return lease?.spec?.holderIdentity || undefined;
  }

  /** The leader's replica, from the Lease holder and the identities the replicas logged. */
  async leader(admin: Client): Promise<string | undefined> {
    const holder = await this.holder(admin);
    if (!holder) return undefined;
    return this.replicas.find((r) => r.process?.marked.some((l) => l.includes(holder)))?.name;
  }

  /** SIGKILLs replica `name` (the leader: no lease is released); it is started again after a pause. */
  async kill(name: string): Promise<void> {
    const r = this.replicas.find((x) => x.name === name);
    const p = r?.process;
    if (!r || !p) throw new Error(`no running replica ${name}`);
    this.kills += 1;
    r.process = undefined;
    await p.stop('SIGKILL');
    setTimeout(() => this.run(r), 3_000).unref();
  }

  /** Last log lines of every replica, for failure messages. */
  describe(): string {
    return this.replicas
      .map((r) => `${r.name} (${r.starts} starts):\n  ${(r.process?.lastLines ?? []).slice(-8).join('\n  ')}`)
      .join('\n');
  }

  /** Stops both (SIGTERM) and starts no more. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.replicas.map((r) => r.process?.stop('SIGTERM', 15_000)));
  }

  private run(r: Replica): void {
    if (this.stopped || r.process?.running) return;
    r.starts += 1;
    const p = new OperatorProcess(
      r.name,
      COORDINATOR_MAIN,
      [
        `--kubeconfig=${this.options.kubeconfigPath}`,
        '--leader-elect',
        `--leader-election-namespace=${this.options.namespace}`,
        '--metrics-bind-address=0',
        `--health-probe-bind-address=127.0.0.1:${r.probePort}`,
        '--resync-period=5s',
        '--log-level=info',
        ...(this.options.args ?? []),
      ],
      this.options.logFile,
      'became leader',
    );
    r.process = p;
    void p.exited.then(() => {
      if (r.process !== p || this.stopped) return;
      r.exits += 1;
      r.process = undefined;
      setTimeout(() => this.run(r), 2_000).unref();
    });
  }
}
