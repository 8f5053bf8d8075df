/**
 * A node for the fault suite: a kwok Node, a private dbus-daemon with a test update_engine and a
 * test logind, its boot ID file, and the real agent as a child process of the built agent main
 * (so it can be killed with SIGKILL, as the demo's in-process agents cannot). logind's Reboot
 * shuts the machine down (the agent gets SIGTERM, as systemd sends it), the kwok Node goes NotReady
 * and comes back with a new boot ID, and the agent starts again as its DaemonSet pod would. An
 * agent that exits on its own is restarted after a pause, as the kubelet restarts a crashed container.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakeLogind, FakeUpdateEngine, type PrivateBus, startPrivateBus, UpdateStatus } from '@capstan/agent';
import type { ControlPlane } from '@capstan/envtest';
import type { KubeConfig } from '@capstan/runtime';
import { OperatorProcess } from './child.js';
import type { HarnessGate } from './gate.js';

/** The built main (`npm run build` first), as its image runs it. */
const AGENT_MAIN = fileURLToPath(new URL('../../../agent/dist/main.js', import.meta.url));

/** What a fault machine needs. */
export interface FaultMachineOptions {
  name: string;
  labels: Record<string, string>;
  version: string;
  plane: ControlPlane;
  /** The agent's identity: a token bound to its DaemonSet pod on this node. */
  identity: () => Promise<KubeConfig>;
  /** Where the agent's log lines go. */
  logFile: string;
  /** How long a reboot keeps the node down. */
  rebootDownMs: number;
  /** Serialises the harness's own apiserver requests with apiserver restarts. */
  gate: HarnessGate;
  /** Something in the simulation itself failed (the suite then fails). */
  onFault: (what: string, err: unknown) => void;
}

const osImage = (version: string) => `Flatcar Container Linux ${version}`;

/** See the file comment. */
export class FaultMachine {
  /** Boot IDs in the order the machine booted them. */
  readonly bootIDs: string[] = [];
  /** Versions booted, in order. */
  readonly versions: string[] = [];
  /** Agent processes started (a DaemonSet's restarts included). */
  agentStarts = 0;
  /** Agent processes that exited without being asked to (restarted after a pause). */
  agentCrashes = 0;
  /** Time between logind's Reboot and the machine going down (the shutdown); default 0. */
  shutdownMs = 0;
  private agent: OperatorProcess | undefined;
  private kubeconfigPath = '';
  private rebooting: Promise<void> | undefined;
  private readonly rebootListeners: Array<() => void> = [];
  private stopped = false;

  private constructor(
    private readonly options: FaultMachineOptions,
    private readonly dir: string,
    private readonly bus: PrivateBus,
    private readonly engine: FakeUpdateEngine,
    private readonly logind: FakeLogind,
  ) {}

  /** Creates the Node, the bus and its services; boots and starts the agent. */
  static async start(options: FaultMachineOptions): Promise<FaultMachine> {
    const dir = mkdtempSync(join(tmpdir(), `capstan-faults-${options.name}-`));
    const bus = await startPrivateBus(dir);
    const engine = await FakeUpdateEngine.start({ address: bus.address });
    const logind = await FakeLogind.start({ address: bus.address });
    const machine = new FaultMachine(options, dir, bus, engine, logind);
    logind.onReboot(() => machine.reboot());
    const bootID = randomUUID();
    await options.gate.shared(() =>
      options.plane.addNodes([
        { name: options.name, labels: options.labels, bootID, osImage: osImage(options.version) },
      ]),
    );
    machine.kubeconfigPath = join(dir, 'agent.kubeconfig');
    writeFileSync(machine.kubeconfigPath, (await options.identity()).exportConfig());
    machine.boot(options.version, bootID);
    return machine;
  }

  get name(): string {
    return this.options.name;
  }

  /** Reboot requests logind accepted (a second one while shutting down changes nothing). */
  get rebootRequests(): number {
    return this.logind.reboots.length;
  }

  /** Whether an agent process runs now. */
  get agentRunning(): boolean {
    return this.agent?.running === true;
  }

  /** The current agent's last log lines. */
  get agentLog(): string[] {
    return this.agent?.lastLines ?? [];
  }

  /** update_engine has staged `version`: a reboot is needed. */
  stageUpdate(version: string): void {
    this.engine.setStatus({
      operation: UpdateStatus.UpdatedNeedReboot,
      newVersion: version,
      progress: 1,
      lastCheckedTime: Math.floor(Date.now() / 1000),
    });
  }

  /** Resolves when logind next accepts a Reboot. */
  rebootRequested(): Promise<void> {
    return new Promise((resolve) => this.rebootListeners.push(resolve));
  }

  /** Kills the agent with SIGKILL (no cleanup runs); it stays dead until {@link startAgent}. */
  async killAgent(): Promise<void> {
    const agent = this.agent;
    this.agent = undefined;
    await agent?.stop('SIGKILL');
  }

  /** Starts a fresh agent process, as the DaemonSet does for a pod whose container died. */
  startAgent(): void {
    if (this.stopped || this.agent?.running) return;
    this.agentStarts += 1;
    const agent = new OperatorProcess(
      `agent ${this.name}`,
      AGENT_MAIN,
      [
        `--kubeconfig=${this.kubeconfigPath}`,
        `--node-name=${this.name}`,
        `--bus-address=${this.bus.address}`,
        `--os-release-path=${join(this.dir, 'os-release')}`,
        `--boot-id-path=${join(this.dir, 'boot_id')}`,
        '--drain-grace-period=0s',
        '--drain-timeout=5m',
        '--failure-backoff=5s',
        '--metrics-bind-address=0',
        '--health-probe-bind-address=0',
        '--log-level=info',
      ],
      this.options.logFile,
    );
    this.agent = agent;
    void agent.exited.then(() => {
      if (this.agent !== agent || this.stopped) return;
      // Exited on its own (not killed by the suite, not a shutdown): the kubelet restarts it.
      this.agentCrashes += 1;
      this.agent = undefined;
      setTimeout(() => this.startAgent(), 2_000).unref();
    });
  }

  /** Waits for a reboot in progress, stops the agent, the services and the bus. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.rebooting?.catch(() => {});
    await this.killAgent();
    await this.logind.stop().catch(() => {});
    await this.engine.stop().catch(() => {});
    await this.bus.stop().catch(() => {});
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** logind's Reboot (not awaited by logind's caller). A second request while going down is ignored. */
  private reboot(): Promise<void> {
    for (const listener of this.rebootListeners.splice(0)) listener();
    if (this.rebooting) return this.rebooting;
    const run = (async () => {
      await delay(this.shutdownMs);
      // The OS goes down: systemd stops the agent (SIGTERM), then the node is NotReady.
      const agent = this.agent;
      this.agent = undefined;
      await agent?.stop('SIGTERM', 10_000);
      const next = this.engine.status.newVersion || this.versions.at(-1) || this.options.version;
      await this.engine.stop();
      this.engine.status = { ...this.engine.status, currentOperation: UpdateStatus.Idle, newVersion: '' };
      if (this.stopped) return;
      const bootID = await this.options.gate.shared(() =>
        this.options.plane.rebootNode(this.name, {
          downMs: this.options.rebootDownMs,
          osImage: osImage(next),
          timeoutMs: 60_000,
        }),
      );
      if (this.stopped) return;
      await this.engine.start();
      this.boot(next, bootID);
    })();
    this.rebooting = run
      .catch((err) => this.options.onFault(`rebooting ${this.name}`, err))
      .finally(() => {
        this.rebooting = undefined;
      });
    return this.rebooting;
  }

  /** A boot with `bootID`: the boot ID file and os-release of `version` written, the agent started. */
  private boot(version: string, bootID: string): void {
    writeFileSync(join(this.dir, 'boot_id'), `${bootID}\n`);
    writeFileSync(
      join(this.dir, 'os-release'),
      `NAME="Flatcar Container Linux by Kinvolk"\nID=flatcar\nVERSION=${version}\nVERSION_ID=${version}\n`,
    );
    this.bootIDs.push(bootID);
    this.versions.push(version);
    this.startAgent();
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
