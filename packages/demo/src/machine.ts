/**
 * One node of the demo: a kwok Node (kwok plays its kubelet and runs its pods), the machine below
 * the agent ({@link MachineHost}: its own dbus-daemon, update_engine, logind, boots and reboots),
 * and the real update agent running in the demo's own process, connected to them. A reboot stops
 * the agent and starts a fresh one once the node is back with a new boot ID and OS version.
 */
import { randomUUID } from 'node:crypto';
import { type RunningAgent, startAgent } from '@capstan/agent';
import type { ControlPlane } from '@capstan/envtest';
import { Client, type KubeConfig, type Logger } from '@capstan/runtime';
import { HttpTransport, Node } from '@capstan/runtime/client';
import { MachineHost, type MachineParts, osImage } from './machine-host.js';

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

/** A node with its own D-Bus, update_engine, logind and an in-process agent. See the file comment. */
export class SimulatedMachine extends MachineHost {
  private agent: RunningAgent | undefined;
  private kubeConfig: KubeConfig | undefined;

  private constructor(
    private readonly options: MachineOptions,
    parts: MachineParts,
  ) {
    super(options, parts);
  }

  /** Creates (or adopts) the Node, starts the machine's bus and services, boots it and starts its agent. */
  static async start(options: MachineOptions): Promise<SimulatedMachine> {
    const machine = new SimulatedMachine(options, await MachineHost.open(options.name, 'capstan-demo'));
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
    machine.powerOn(bootID);
    return machine;
  }

  /** The identity the agent runs as (known once the machine started). */
  get agentKubeConfig(): KubeConfig {
    if (!this.kubeConfig) throw new Error(`machine ${this.name} has no identity yet`);
    return this.kubeConfig;
  }

  /** Stops the machine; a reboot in progress is waited on for a moment only (see {@link MachineHost.stop}). */
  override stop(): Promise<void> {
    // A terminal's Ctrl-C reaches the apiserver too: a reboot waiting on it would never end.
    return super.stop(2_000);
  }

  protected startAgent(): void {
    const agent = startAgent({
      kubeConfig: this.agentKubeConfig,
      nodeName: this.name,
      protocol: this.options.protocol,
      busAddress: this.bus.address,
      osReleasePath: this.osReleasePath,
      drainGracePeriodSeconds: 0,
      drainTimeoutMs: 30_000,
      failureBackoffMs: 5_000,
      podPollMs: 200,
      logger: this.options.logger.child({ node: this.name }),
    });
    agent.done.catch((err) => this.options.onFault(`the agent on ${this.name}`, err));
    this.agent = agent;
  }

  protected async stopAgent(): Promise<void> {
    const agent = this.agent;
    this.agent = undefined;
    await agent?.stop();
  }
}
