/**
 * capvcd at scale (issue 48): a MachineDeployment of N workers on vcdsim with VCD-like task
 * latency and boot time, capvcd as its own process (`dist/main.js`, its Deployment's flags but
 * leader election), and vcdsim, Cluster API and the guests' Node registration in this one.
 *  - wall time from the MachineDeployment's creation to all N Machines Running (the control plane
 *    is up first), against the VCD-bound ideal (see `scale-ideal.ts`);
 *  - VCD calls per machine all-in, counted by vcdsim: everything from the Cluster's creation to all
 *    Running (cluster-level calls shared out over the N + 1 machines);
 *  - capvcd's CPU-seconds (its process's utime + stime, /proc) and RSS peak (VmHWM);
 *  - the MachineDeployment's delete: wall time to all its VMs gone from vcdsim, calls per machine.
 * `BENCH_CPU_PROF_DIR` makes capvcd's process write a CPU profile there when it stops.
 * `BENCH_CAPVCD_AUDIT` counts the API server's requests by sender (`api-audit.ts`);
 * `BENCH_CAPVCD_MAIN` runs another build of capvcd (an old and a new one in turn, at the same load).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MachineType } from '@capstan/capvcd';
import { Harness } from '../test/e2e/harness.js';
import { POOL_LABEL } from '../test/e2e/objects.js';
import { ApiAudit, perMachine } from './api-audit.js';
import { type IdealInputs, idealFormula, idealMs } from './scale-ideal.js';

/** vcdsim's task latency and the guest's boot (scaled from VCD's seconds, as the calls rows are). */
const TASK_MS = Number(process.env.BENCH_CAPVCD_TASK_MS ?? 1_000);
const BOOT_MS = Number(process.env.BENCH_CAPVCD_BOOT_MS ?? 500);
/** capvcd's per-site request budget: its `--vcd-qps` / `--vcd-burst` defaults, passed explicitly. */
const QPS = 10;
const BURST = 20;
/** The budget of VCD calls per machine, all-in: the ideal's request-rate bound uses it. */
export const CALLS_PER_MACHINE_TARGET = 12;
/** Tasks a machine's VM goes through: create (recompose, reconfigure, power on), delete (power off, undeploy, delete). */
const CREATE_TASKS = 3;
const DELETE_TASKS = 3;
/** A delete's floor: each task started and seen finished, two calls a task. */
const DELETE_CALLS = 2 * DELETE_TASKS;

const CLUSTER = 's1';
const POOL = `${CLUSTER}-md-0`;
/** capvcd's entry point; `BENCH_CAPVCD_MAIN` runs another build of it (an A/B run of a change). */
const main =
  process.env.BENCH_CAPVCD_MAIN ?? fileURLToPath(new URL('../../../dist/main.js', import.meta.url));

/** One run's figures. */
export interface ScaleRun {
  workers: number;
  runningMs: number;
  runningIdeal: IdealInputs;
  callsAllIn: number;
  callsPerWorker: number;
  cpuSeconds: number;
  rssPeakMB: number;
  deleteMs: number;
  deleteIdeal: IdealInputs;
  deleteCallsPerMachine: number;
  load: string;
  byRoute: Record<string, number>;
  /** With `BENCH_CAPVCD_AUDIT`: API server requests while the workers are made, then deleted. */
  api?: { create: Record<string, number>; delete: Record<string, number> };
}

/** capvcd's own process, its output kept to explain a failure. */
class CapvcdProcess {
  private output = '';
  constructor(private readonly child: ChildProcess) {
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-4000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  static start(kubeconfig: string): CapvcdProcess {
    const dir = process.env.BENCH_CPU_PROF_DIR;
    const profile = dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
    const args = [
      ...profile,
      main,
      // One replica and no election: on a starved shared machine a lease renewal can miss its
      // deadline, and the provider then exits as it must (seen at load 24), ending the row.
      `--kubeconfig=${kubeconfig}`,
      '--metrics-bind-address=0',
      '--health-probe-bind-address=127.0.0.1:0',
      '--concurrency=10',
      `--vcd-qps=${QPS}`,
      `--vcd-burst=${BURST}`,
      '--log-level=error',
    ];
    return new CapvcdProcess(spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
  }

  /** Throws with its output when the process has ended. */
  alive(): void {
    if (this.child.exitCode !== null || this.child.signalCode !== null)
      throw new Error(`capvcd exited (${this.child.exitCode ?? this.child.signalCode}):\n${this.output}`);
  }

  /** User + system CPU seconds so far (/proc/<pid>/stat, in USER_HZ ticks of 1/100 s). */
  cpuSeconds(): number {
    const stat = readFileSync(`/proc/${this.child.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  }

  /** The most resident memory it has had (VmHWM), in MB. */
  rssPeakMB(): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    return Number(status.match(/^VmHWM:\s+(\d+) kB/m)?.[1]) / 1024;
  }

  /** SIGTERM, as the kubelet sends it (a CPU profile is written then). */
  stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill('SIGTERM');
    });
  }
}

/** Polls `done` every second until it holds; says what was seen on timeout. */
async function until(
  h: Harness,
  capvcd: CapvcdProcess,
  what: string,
  done: () => Promise<string | true>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    capvcd.alive();
    const seen = await done();
    if (seen === true) return;
    if (Date.now() > deadline) {
      const errors = h.sim.inspect.errors().map((e) => `${e.where}: ${String(e.error)}`);
      throw new Error(
        `${what} not within ${timeoutMs} ms: ${seen}; vcdsim errors: ${errors.join('; ') || 'none'}`,
      );
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** How many of the pool's Machines are Running, of how many. */
async function workersRunning(h: Harness, workers: number): Promise<string | true> {
  const machines = (await h.client.list(MachineType, { namespace: h.namespace })).items.filter(
    (m) => m.metadata.labels?.[POOL_LABEL] === POOL,
  );
  const running = machines.filter((m) => m.status?.phase === 'Running').length;
  if (running === workers) return true;
  // Where the rest are: bootstrap data (Cluster API's), a providerID (the VM provisioned, capvcd's).
  const withData = machines.filter((m) => m.spec?.bootstrap?.dataSecretName).length;
  const provisioned = machines.filter((m) => m.spec?.providerID).length;
  return `${running} of ${workers} Running (${machines.length} made, ${withData} with bootstrap data, ${provisioned} provisioned)`;
}

/**
 * `BENCH_CAPVCD_TIMELINE`: every 5 s, the calls vcdsim served meanwhile by kind, to stderr: a row
 * bound by the request budget serves ~qps a second throughout; gaps are waits of another kind.
 */
class Timeline {
  private last: Record<string, number> = {};
  private lastAt = 0;
  constructor(
    private readonly h: Harness,
    private readonly start: number,
  ) {}

  sample(seen: string | true): void {
    const at = performance.now() - this.start;
    if (seen !== true && at - this.lastAt < 5_000) return;
    const counts = this.h.sim.inspect.counts();
    const delta = (match: (route: string) => boolean) =>
      Object.entries(counts)
        .filter(([route]) => match(route))
        .reduce((sum, [route, n]) => sum + n - (this.last[route] ?? 0), 0);
    const kinds = {
      task: delta((r) => r.startsWith('GET /api/task')),
      vapp: delta((r) => r.startsWith('GET /api/vApp/vapp')),
      recompose: delta((r) => r.includes('recomposeVApp')),
      reconfigure: delta((r) => r.includes('reconfigureVm')),
      powerOn: delta((r) => r.includes('powerOn')),
      all: delta(() => true),
    };
    process.stderr.write(
      `t=${(at / 1000).toFixed(0)}s ${JSON.stringify(kinds)} ${seen === true ? 'all Running' : seen}\n`,
    );
    this.last = counts;
    this.lastAt = at;
  }
}

/** One run: control plane up, then N workers to Running, then their MachineDeployment deleted. */
export async function scaleRun(workers: number): Promise<ScaleRun> {
  const load = () => loadavg()[0]?.toFixed(1) ?? '?';
  const loadBefore = load();
  const audit = process.env.BENCH_CAPVCD_AUDIT ? new ApiAudit() : undefined;
  const h = await Harness.start({
    namespace: 'bench-scale',
    taskLatencyMs: TASK_MS,
    bootDelayMs: BOOT_MS,
    ...(audit ? { apiServerFlags: audit.flags } : {}),
  });
  let capvcd: CapvcdProcess | undefined;
  try {
    await h.prepareCluster(CLUSTER);
    const kubeconfig = await h.plane.serviceAccountKubeConfig('capvcd-system', 'capstan-capvcd');
    capvcd = CapvcdProcess.start(kubeconfig.path);
    const proc = capvcd;
    h.sim.inspect.resetRequests();
    await h.plane.createObjects([
      ...h.clusterObjects(CLUSTER, { host: '10.10.0.5', port: 6443 }),
      ...h.controlPlaneObjects(CLUSTER, `${CLUSTER}-cp-0`),
    ]);
    await until(
      h,
      proc,
      'the control plane Running',
      async () => {
        const m = await h.client.get(MachineType, { namespace: h.namespace, name: `${CLUSTER}-cp-0` });
        return m.status?.phase === 'Running' && m.status.nodeRef ? true : `control plane ${m.status?.phase}`;
      },
      300_000,
    );
    const callsBefore = h.sim.inspect.requestTotal();
    const cpuBefore = proc.cpuSeconds();
    const marks = [audit?.mark() ?? 0];
    const start = performance.now();
    await h.plane.createObjects(h.workerObjects(CLUSTER, POOL, workers));
    const timeline = process.env.BENCH_CAPVCD_TIMELINE ? new Timeline(h, start) : undefined;
    await until(
      h,
      proc,
      `${workers} workers Running`,
      async () => {
        const seen = await workersRunning(h, workers);
        timeline?.sample(seen);
        return seen;
      },
      120_000 + workers * 10_000,
    );
    const runningMs = performance.now() - start;
    const cpuSeconds = proc.cpuSeconds() - cpuBefore;
    const total = h.sim.inspect.requestTotal();
    const byRoute = h.sim.inspect.counts();
    marks.push(audit?.mark() ?? 0);
    const deleted = await deleteWorkers(h, proc, workers);
    marks.push(audit?.mark() ?? 0);
    const [made = 0, running = 0, gone = 0] = marks;
    return {
      workers,
      runningMs,
      runningIdeal: ideal(workers, CREATE_TASKS, BOOT_MS, CALLS_PER_MACHINE_TARGET),
      callsAllIn: total / (workers + 1),
      callsPerWorker: (total - callsBefore) / workers,
      cpuSeconds,
      rssPeakMB: proc.rssPeakMB(),
      ...deleted,
      deleteIdeal: ideal(workers, DELETE_TASKS, 0, DELETE_CALLS),
      load: `${loadBefore}→${load()}`,
      byRoute,
      ...(audit ? { api: { create: audit.tally(made, running), delete: audit.tally(running, gone) } } : {}),
    };
  } finally {
    await capvcd?.stop();
    await h.stop();
  }
}

const ideal = (machines: number, tasksInChain: number, bootMs: number, callsPerMachine: number) => ({
  machines,
  tasksInChain,
  taskMs: TASK_MS,
  bootMs,
  callsPerMachine,
  qps: QPS,
  burst: BURST,
});

/** Deletes the MachineDeployment; wall time until vcdsim holds none of its VMs, and calls per machine. */
async function deleteWorkers(h: Harness, proc: CapvcdProcess, workers: number) {
  const poolVms = () => [...h.sim.inspect.world.vms.values()].filter((vm) => vm.name.startsWith(POOL)).length;
  if (poolVms() !== workers) throw new Error(`vcdsim holds ${poolVms()} VMs of ${POOL}, not ${workers}`);
  h.sim.inspect.resetRequests();
  const start = performance.now();
  await h.plane.request(
    'DELETE',
    `/apis/cluster.x-k8s.io/v1beta2/namespaces/${h.namespace}/machinedeployments/${POOL}`,
  );
  const left = async () => (poolVms() === 0 ? true : `${poolVms()} VMs left`);
  await until(h, proc, `the ${workers} VMs gone`, left, 120_000 + workers * 10_000);
  return {
    deleteMs: performance.now() - start,
    deleteCallsPerMachine: h.sim.inspect.requestTotal() / workers,
  };
}

/** The rows, as the other capvcd rows print (ours / ideal or baseline / ratio / target). */
export function scaleLines(
  runs: ScaleRun[],
  row: (name: string, ours: string, base: string, ratio: number, target: string) => string,
): { lines: string[]; met: boolean } {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const smallest = runs[0];
  const lines: string[] = [];
  let met = true;
  for (const r of runs) {
    const want = idealMs(r.runningIdeal);
    lines.push(
      row(
        `${r.workers} machines to Running`,
        s(r.runningMs),
        s(want),
        r.runningMs / want,
        `VCD-bound ideal; load ${r.load}`,
      ),
    );
    if (smallest && r !== smallest) {
      const ratio = r.runningMs / smallest.runningMs;
      met &&= ratio <= 3;
      lines.push(
        row(
          `  vs ${smallest.workers} machines`,
          s(r.runningMs),
          s(smallest.runningMs),
          ratio,
          `<= 3x the time ${smallest.workers} take`,
        ),
      );
    }
    met &&= r.callsAllIn <= CALLS_PER_MACHINE_TARGET;
    lines.push(
      row(
        `  VCD calls/machine all-in`,
        r.callsAllIn.toFixed(1),
        String(CALLS_PER_MACHINE_TARGET),
        r.callsAllIn / CALLS_PER_MACHINE_TARGET,
        `<= 12 (cluster + control plane shared out over ${r.workers + 1}; workers alone ${r.callsPerWorker.toFixed(1)})`,
      ),
      row(
        `  capvcd CPU, RSS peak`,
        `${r.cpuSeconds.toFixed(1)} s`,
        `${r.rssPeakMB.toFixed(0)} MB`,
        r.cpuSeconds / r.workers,
        'CPU-s total, RSS VmHWM; ratio = CPU-s per machine (its own process, /proc)',
      ),
    );
    const gone = idealMs(r.deleteIdeal);
    lines.push(
      row(
        `  delete, all VMs gone`,
        s(r.deleteMs),
        s(gone),
        r.deleteMs / gone,
        `VCD-bound ideal; ${r.deleteCallsPerMachine.toFixed(1)} calls/machine`,
      ),
    );
  }
  for (const r of runs) {
    lines.push(`scale ideal, ${r.workers} to Running: ${idealFormula(r.runningIdeal)}`);
    lines.push(`scale ideal, ${r.workers} deleted: ${idealFormula(r.deleteIdeal)}`);
  }
  for (const r of runs) lines.push(`calls by route at ${r.workers}: ${JSON.stringify(r.byRoute)}`);
  for (const r of runs)
    if (r.api)
      lines.push(
        `API requests per machine at ${r.workers}, to Running: ${perMachine(r.api.create, r.workers)}`,
        `API requests per machine at ${r.workers}, delete: ${perMachine(r.api.delete, r.workers)}`,
      );
  return { lines, met };
}
