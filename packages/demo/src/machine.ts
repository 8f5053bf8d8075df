/**
 * One simulated node: a kwok Node (kwok plays its kubelet and runs its pods), a private
 * dbus-daemon carrying a test update_engine and a test logind, and the real update agent connected
 * to them. logind's Reboot takes the machine down (agent gone, node NotReady, its pods not ready),
 * then boots it again with a new boot ID, the new OS version, its pods running again and a fresh
 * agent, as a real reboot would.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FakeLogind,
  FakeUpdateEngine,
  type PrivateBus,
  type RunningAgent,
  startAgent,
  startPrivateBus,
  UpdateStatus,
} from '@capstan/agent';
import type { ControlPlane } from '@capstan/envtest';
import { Client, type KubeConfig, type Logger } from '@capstan/runtime';
import { HttpTransport, Node } from '@capstan/runtime/client';

/** Options of {@link SimulatedMachine.start}. */
export interface MachineOptions {
  /** Node name. */
  name: string;
  /** Node labels (the reboot groups select on them). */
  labels: Record<string, string>;
  /** OS version before the update. */
  version: string;
  /** Annotation protocol the agent speaks. */
  protocol: 'capstan' | 'fluo';
  /** How long a reboot keeps the node down. */
  rebootDownMs: number;
  /** Identity the agent runs as, resolved once the machine's Node exists (it may name the node). */
  identity: () => Promise<KubeConfig>;
  /** The control plane, with kwok, that holds the machine's Node. */
  plane: ControlPlane;
  /** Where the agent logs. */
  logger: Logger;
  /** Called when something in the simulation itself fails (the demo then fails). */
  onFault: (what: string, err: unknown) => void;
  /**
   * The Node exists already (its guest registered it when the machine was provisioned): adopt it
   * and its boot ID, `labels` aside, instead of creating it. Default false.
   */
  adopt?: boolean;
}

const osImage = (version: string) => `Flatcar Container Linux ${version}`;

/** A node with its own D-Bus, update_engine, logind and agent. See the file comment. */
export class SimulatedMachine {
  /** Boot IDs in the order the machine booted them. */
  readonly bootIDs: string[] = [];
  /** Versions booted, in order. */
  readonly versions: string[] = [];
  private agent: RunningAgent | undefined;
  private rebooting: Promise<void> | undefined;
  private stopped = false;

  private kubeConfig: KubeConfig | undefined;

  private constructor(
    private readonly options: MachineOptions,
    private readonly dir: string,
    private readonly bus: PrivateBus,
    private readonly engine: FakeUpdateEngine,
    private readonly logind: FakeLogind,
  ) {}

  /** Creates the Node, starts the machine's bus and services, boots it and starts its agent. */
  static async start(options: MachineOptions): Promise<SimulatedMachine> {
    const dir = mkdtempSync(join(tmpdir(), `capstan-demo-${options.name}-`));
    const bus = await startPrivateBus(dir);
    const engine = await FakeUpdateEngine.start({ address: bus.address });
    const logind = await FakeLogind.start({ address: bus.address });
    const machine = new SimulatedMachine(options, dir, bus, engine, logind);
    logind.onReboot(() => machine.reboot());
    let bootID: string = randomUUID();
    if (options.adopt) {
      const admin = new Client(new HttpTransport(options.plane.kubeConfig));
      const node = await admin.get(Node, { name: options.name });
      bootID = node.status?.nodeInfo?.bootID || bootID;
    } else {
      await options.plane.addNodes([
        { name: options.name, labels: options.labels, bootID, osImage: osImage(options.version) },
      ]);
    }
    machine.kubeConfig = await options.identity();
    await machine.boot(options.version, bootID);
    return machine;
  }

  get name(): string {
    return this.options.name;
  }

  /** The identity the agent runs as (known once the machine started). */
  get agentKubeConfig(): KubeConfig {
    if (!this.kubeConfig) throw new Error(`machine ${this.name} has no identity yet`);
    return this.kubeConfig;
  }

  /** Reboot requests logind accepted. */
  get rebootRequests(): number {
    return this.logind.reboots.length;
  }

  /** update_engine has downloaded and staged `version`: it now says a reboot is needed. */
  stageUpdate(version: string): void {
    this.engine.setStatus({
      operation: UpdateStatus.UpdatedNeedReboot,
      newVersion: version,
      progress: 1,
      lastCheckedTime: Math.floor(Date.now() / 1000),
    });
  }

  /** Waits a moment for a reboot in progress, then stops the agent, the services and the bus. */
  async stop(): Promise<void> {
    this.stopped = true;
    // A reboot in progress ends by itself once it sees `stopped`; it may wait on an apiserver that
    // is gone (a terminal's Ctrl-C reaches it too), so it is not waited on for long.
    await Promise.race([
      this.rebooting?.catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, 2_000)),
    ]);
    await this.agent?.stop().catch(() => {});
    this.agent = undefined;
    await this.logind.stop().catch(() => {});
    await this.engine.stop().catch(() => {});
    await this.bus.stop().catch(() => {});
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** logind's Reboot: runs once logind has answered the agent (the hook is not awaited by it). */
  private reboot(): Promise<void> {
    const run = (async () => {
      // The OS goes down: the agent dies with it.
      await this.agent?.stop();
      this.agent = undefined;
      const next = this.engine.status.newVersion || this.versions.at(-1) || this.options.version;
      await this.engine.stop();
      // After the reboot update_engine runs the new version and has nothing pending.
      this.engine.status = { ...this.engine.status, currentOperation: UpdateStatus.Idle, newVersion: '' };
      if (this.stopped) return;
      // The node is NotReady while down, then Ready with a new boot ID and its pods running again.
      const bootID = await this.options.plane.rebootNode(this.name, {
        downMs: this.options.rebootDownMs,
        osImage: osImage(next),
        timeoutMs: 60_000,
      });
      if (this.stopped) return;
      await this.engine.start();
      await this.boot(next, bootID);
    })();
    this.rebooting = run.catch((err) => this.options.onFault(`rebooting ${this.name}`, err));
    return this.rebooting;
  }

  /** A boot (the node is Ready with `bootID`): os-release of `version`, the agent starts. */
  private async boot(version: string, bootID: string): Promise<void> {
    const osRelease = join(this.dir, 'os-release');
    writeFileSync(
      osRelease,
      `NAME="Flatcar Container Linux by Kinvolk"\nID=flatcar\nVERSION=${version}\nVERSION_ID=${version}\n`,
    );
    this.bootIDs.push(bootID);
    this.versions.push(version);
    const agent = startAgent({
      kubeConfig: this.agentKubeConfig,
      nodeName: this.name,
      protocol: this.options.protocol,
      busAddress: this.bus.address,
      osReleasePath: osRelease,
      drainGracePeriodSeconds: 0,
      drainTimeoutMs: 30_000,
      failureBackoffMs: 5_000,
      podPollMs: 200,
      logger: this.options.logger.child({ node: this.name }),
    });
    agent.done.catch((err) => this.options.onFault(`the agent on ${this.name}`, err));
    this.agent = agent;
  }
}
