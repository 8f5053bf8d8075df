/**
 * A node for the fault suite: the demo's machine below the agent ({@link MachineHost}: a kwok
 * Node's dbus-daemon, update_engine, logind, boot ID file, boots and reboots) with the real agent
 * as a child process of the built agent main, so it can be killed with SIGKILL, as the demo's
 * in-process agents cannot. A shutdown sends the agent SIGTERM, as systemd does; the agent starts
 * again after the boot as its DaemonSet pod would. An agent that exits on its own is restarted
 * after a pause, as the kubelet restarts a crashed container.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT_NODE_OPTIONS } from '@capstan/agent';
import type { ControlPlane } from '@capstan/envtest';
import type { KubeConfig } from '@capstan/runtime';
import { type AgentStop, MachineHost, type MachineParts, osImage } from '../../src/machine-host.js';
import { OperatorProcess } from './child.js';
import type { HarnessGate } from './gate.js';

/** The built main (`npm run build` first), run with its image's Node.js options. */
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

/** See the file comment. */
export class FaultMachine extends MachineHost {
  /** Agent processes started (a DaemonSet's restarts included). */
  agentStarts = 0;
  /** Agent processes that exited without being asked to (restarted after a pause). */
  agentCrashes = 0;
  private agent: OperatorProcess | undefined;
  private kubeconfigPath = '';

  private constructor(
    private readonly options: FaultMachineOptions,
    parts: MachineParts,
  ) {
    super({ ...options, request: (call) => options.gate.shared(call) }, parts);
  }

  /** Creates the Node, the bus and its services; boots and starts the agent. */
  static async start(options: FaultMachineOptions): Promise<FaultMachine> {
    const machine = new FaultMachine(options, await MachineHost.open(options.name, 'capstan-faults'));
    const bootID = randomUUID();
    await options.gate.shared(() =>
      options.plane.addNodes([
        { name: options.name, labels: options.labels, bootID, osImage: osImage(options.version) },
      ]),
    );
    machine.kubeconfigPath = join(machine.dir, 'agent.kubeconfig');
    writeFileSync(machine.kubeconfigPath, (await options.identity()).exportConfig());
    machine.powerOn(bootID);
    return machine;
  }

  /** Whether an agent process runs now. */
  get agentRunning(): boolean {
    return this.agent?.running === true;
  }

  /** The current agent's last log lines. */
  get agentLog(): string[] {
    return this.agent?.lastLines ?? [];
  }

  /** Kills the agent with SIGKILL (no cleanup runs); it stays dead until {@link startAgent}. */
  async killAgent(): Promise<void> {
    const agent = this.agent;
    this.agent = undefined;
    await agent?.stop('SIGKILL');
  }

  /** Starts a fresh agent process, as the DaemonSet does for a pod whose container died. */
  override startAgent(): void {
    if (this.stopped || this.agent?.running) return;
    this.agentStarts += 1;
    const agent = new OperatorProcess(
      `agent ${this.name}`,
      AGENT_MAIN,
      [
        `--kubeconfig=${this.kubeconfigPath}`,
        `--node-name=${this.name}`,
        `--bus-address=${this.bus.address}`,
        `--os-release-path=${this.osReleasePath}`,
        `--boot-id-path=${this.bootIdPath}`,
        '--drain-grace-period=0s',
        '--drain-timeout=5m',
        '--failure-backoff=5s',
        '--metrics-bind-address=0',
        '--health-probe-bind-address=0',
        '--log-level=info',
      ],
      this.options.logFile,
      undefined,
      AGENT_NODE_OPTIONS,
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

  /** A shutdown stops the agent as systemd does (SIGTERM); the end of the run kills it. */
  protected async stopAgent(why: AgentStop): Promise<void> {
    if (why === 'end') return this.killAgent();
    const agent = this.agent;
    this.agent = undefined;
    await agent?.stop('SIGTERM', 10_000);
  }
}
