/**
 * The update agent wired into a manager: a controller on its own Node (a field-selected informer)
 * whose reconciler ({@link AgentReconciler}) decides and acts, fed by a runnable that follows the
 * reboot-needed source and enqueues the node on every change. {@link addAgent} adds one to a
 * manager; {@link startAgent} runs one in-process under a manager of its own.
 */
import { type Protocol, type ProtocolName, protocolOf } from '@capstan/reboot-protocol';
import { type Controller, type Logger, Manager, type ManagerOptions } from '@capstan/runtime';
import { Node } from '@capstan/runtime/client';
import type { LogLevel } from '@capstan/runtime/manager';
import type { AgentMemory, AgentPhase, Decision, DecisionConfig } from './api/types.js';
import { InhibitUnsupportedError, Logind } from './dbus/logind.js';
import { labelValue } from './decide/decide.js';
import { DEFAULT_EVICTION_RETRY } from './decide/eviction-backoff.js';
import { AGENT_MANAGER } from './manager-name.js';
import { AgentMetrics } from './metrics.js';
import { readOsRelease } from './os-release.js';
import { AGENT_EVENTS_SCOPE, agentPermissions } from './permissions.js';
import { AgentReconciler, type Rebooter, readMachineBootId } from './reconciler.js';
import type { RebootNeededSource, SourceStatus } from './sources/source.js';
import { UpdateEngineSource } from './sources/update-engine-source.js';

export { MACHINE_BOOT_ID_PATH, nodeFacts, type Rebooter, readMachineBootId } from './reconciler.js';

/** Options of an {@link Agent}. Durations in milliseconds. */
export interface AgentOptions {
  /** The Node this agent runs on (`NODE_NAME` from the downward API in a DaemonSet). */
  nodeName: string;
  /** Annotation protocol: `capstan` (default), `fluo`, or a custom one. */
  protocol?: ProtocolName | Protocol;
  /** D-Bus system bus address for update_engine and logind; default `DBUS_SYSTEM_BUS_ADDRESS` or /var/run/dbus. */
  busAddress?: string;
  /** Where "reboot needed" comes from; default update_engine on `busAddress`. */
  source?: RebootNeededSource;
  /** What reboots; default logind (`CanReboot`, then `Reboot(false)`) on `busAddress`. */
  rebooter?: Rebooter;
  /**
   * This machine's boot ID file (`/proc/sys/kernel/random/boot_id` in the agent's main), the
   * truth over the Node's status; the agent refuses to start when it is given and unreadable.
   * Absent: the Node's status, only for simulations whose "reboot" sets the Node's boot ID at once
   * (a real node's kubelet may post it late, and the stale one would reboot the node twice).
   */
  bootIdPath?: string;
  /** os-release for the id/version labels; default /etc/os-release, then /usr/lib/os-release. */
  osReleasePath?: string;
  /** Give up a drain after this long; 0 waits forever. Default 10 min. */
  drainTimeoutMs?: number;
  /** Grace period given to evicted pods, in seconds; negative (default) uses each pod's own. */
  drainGracePeriodSeconds?: number;
  /** Reboot even when the drain timed out. Default false. */
  forceReboot?: boolean;
  /** After a failed drain or reboot, wait this long before the next cycle. Default 5 min. */
  failureBackoffMs?: number;
  /** First delay after an eviction was refused (429); doubled up to `evictionRetryMaxMs`. Default 1 s. */
  evictionRetryMinMs?: number;
  /** Longest delay between eviction rounds. Default 10 s. */
  evictionRetryMaxMs?: number;
  /** Evictions in flight at once during a drain. Default 10. */
  evictionParallelism?: number;
  /** One eviction request's time limit; a slower one is retried with the next round. Default 30 s. */
  evictionTimeoutMs?: number;
  /** How often to look at evicted pods that are still terminating. Default 1 s. */
  podPollMs?: number;
  /** Quarantine a node after this many reboot cycles within `quarantineWindowMs` with its source still asking; 0 (default): never. */
  quarantineAfter?: number;
  /** The window of `quarantineAfter`. Default 6 h. */
  quarantineWindowMs?: number;
}

/**
 * The decision settings `options` give for `protocol`, each one absent at its default: drain
 * timeout 10 min, no forced reboot, 5 min failure backoff, pods polled each second, no quarantine
 * (window 6 h).
 */
export function decisionConfigOf(
  protocol: Protocol,
  options: Partial<Omit<DecisionConfig, 'protocol'>>,
): DecisionConfig {
  return {
    protocol,
    drainTimeoutMs: options.drainTimeoutMs ?? 10 * 60_000,
    forceReboot: options.forceReboot ?? false,
    failureBackoffMs: options.failureBackoffMs ?? 5 * 60_000,
    podPollMs: options.podPollMs ?? 1_000,
    quarantineAfter: options.quarantineAfter ?? 0,
    quarantineWindowMs: options.quarantineWindowMs ?? 6 * 3_600_000,
  };
}

/** What an agent is doing, for logs, tests and the demo. */
export interface AgentState {
  phase: AgentPhase | 'NotStarted';
  why: string;
  memory: AgentMemory;
  source: SourceStatus | undefined;
}

/**
 * One node's update agent, wired into a {@link Manager}: a controller named `reboot-agent` on the
 * node (informer restricted to `metadata.name=<node>`), a runnable that follows the reboot-needed
 * source and enqueues the node on every change, and its metrics on the manager's registry. Run it
 * with `manager.start(signal)`; a Manager starts once, so a restarted agent needs a new Manager
 * (see {@link startAgent}).
 */
export class Agent {
  readonly nodeName: string;
  readonly protocol: Protocol;
  readonly metrics: AgentMetrics;
  readonly controller: Controller;
  readonly reconciler: AgentReconciler;
  private readonly source: RebootNeededSource;
  private readonly logind: Logind | undefined;
  private readonly log: Logger;
  private last: Decision | undefined;
  private readonly listeners = new Set<(state: AgentState) => void>();

  constructor(
    manager: Manager,
    private readonly options: AgentOptions,
  ) {
    if (!options.nodeName) throw new RangeError('the agent needs a node name');
    this.nodeName = options.nodeName;
    this.protocol = protocolOf(options.protocol);
    this.log = manager.logger.child({ agent: this.nodeName });
    this.metrics = new AgentMetrics(manager.metrics.registry);
    const address = options.busAddress !== undefined ? { address: options.busAddress } : {};
    this.source = options.source ?? new UpdateEngineSource(address);
    let rebooter: Rebooter;
    if (options.rebooter) rebooter = options.rebooter;
    else {
      this.logind = new Logind(address);
      rebooter = this.logind;
    }
    const machineBootId = options.bootIdPath ? readMachineBootId(options.bootIdPath) : undefined;
    // No fallback to the Node's status when a path was given: a stale one reboots twice.
    if (options.bootIdPath && !machineBootId)
      throw new Error(
        `cannot read this machine's boot ID from ${options.bootIdPath}; the agent does not start without it`,
      );
    this.reconciler = new AgentReconciler({
      ...(machineBootId ? { machineBootId } : {}),
      nodeName: this.nodeName,
      client: manager.client,
      events: manager.events,
      clock: manager.clock,
      log: this.log,
      metrics: this.metrics,
      rebooter,
      config: decisionConfigOf(this.protocol, options),
      ...(options.drainGracePeriodSeconds !== undefined
        ? { drainGracePeriodSeconds: options.drainGracePeriodSeconds }
        : {}),
      ...(options.evictionParallelism !== undefined
        ? { evictionParallelism: options.evictionParallelism }
        : {}),
      ...(options.evictionTimeoutMs !== undefined ? { evictionTimeoutMs: options.evictionTimeoutMs } : {}),
      evictionRetry: {
        initialMs: options.evictionRetryMinMs ?? DEFAULT_EVICTION_RETRY.initialMs,
        maxMs: options.evictionRetryMaxMs ?? DEFAULT_EVICTION_RETRY.maxMs,
      },
      onDecision: (decision) => this.observe(decision),
    });
    this.controller = manager
      .controllerBuilder()
      .named('reboot-agent')
      .for(Node, { fieldSelector: `metadata.name=${this.nodeName}` })
      .build(this.reconciler);
    for (const permission of agentPermissions()) manager.permissions.add(permission);
    manager.add({ name: 'reboot-needed-source', start: (signal) => this.follow(signal) }, 'always');
  }

  /** The latest decision: phase, why, memory and the source's status. */
  get state(): AgentState {
    return {
      phase: this.last?.phase ?? 'NotStarted',
      why: this.last?.why ?? '',
      memory: this.reconciler.memory,
      source: this.reconciler.source,
    };
  }

  /** Calls `listener` with the state after every decision that changed the phase or why; returns an unsubscribe. */
  onStateChange(listener: (state: AgentState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Follows the reboot-needed source until `signal` aborts. */
  private async follow(signal: AbortSignal): Promise<void> {
    await this.readOs();
    const unlock = await this.takeInhibitorLock();
    try {
      await this.source.start((status) => {
        this.reconciler.sourceReported(status);
        this.controller.enqueue({ name: this.nodeName }, 'reboot-needed source');
      });
      if (!signal.aborted)
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    } finally {
      await this.source.stop();
      unlock?.();
    }
  }

  private async readOs(): Promise<void> {
    try {
      const os = await readOsRelease(this.options.osReleasePath);
      this.reconciler.os = { id: os.id, version: labelValue(os.version) ?? labelValue(os.versionId) };
    } catch (err) {
      this.log.warn({ err }, 'cannot read os-release: the id and version labels are not written');
    }
  }

  /**
   * Takes logind's "delay" shutdown inhibitor lock when the process can receive its fd. It is
   * optional: without unix fd passing (dbus-next lacks its native module here) it is skipped.
   */
  private async takeInhibitorLock(): Promise<(() => void) | undefined> {
    if (!this.logind) return undefined;
    try {
      return await this.logind.inhibit('shutdown', AGENT_MANAGER, 'recording the reboot', 'delay');
    } catch (err) {
      // Said once at start, at warn: an operator should know the reboot is not delayed for us.
      // Harmless to the protocol: in-progress is written before the reboot is asked.
      this.log.warn(
        { err, unsupported: err instanceof InhibitUnsupportedError },
        'no logind delay inhibitor lock: shutdown is not delayed for the agent (see docs/ARCHITECTURE.md)',
      );
      return undefined;
    }
  }

  private observe(decision: Decision): void {
    const changed = decision.phase !== this.last?.phase || decision.why !== this.last?.why;
    this.last = decision;
    if (!changed) return;
    this.log.info({ phase: decision.phase, why: decision.why }, 'agent state');
    const state = this.state;
    for (const listener of this.listeners) {
      try {
        listener(state);
      } catch (err) {
        this.log.warn({ err }, 'state listener threw');
      }
    }
  }
}

/** Adds an agent for `options.nodeName` to `manager`; start the manager to run it. */
export function addAgent(manager: Manager, options: AgentOptions): Agent {
  return new Agent(manager, options);
}

/** Options of {@link startAgent}: the agent's, plus where to connect. */
export interface StartAgentOptions extends AgentOptions {
  kubeConfig: NonNullable<ManagerOptions['kubeConfig']>;
  logLevel?: LogLevel;
  logger?: Logger;
}

/** An agent running in this process under its own Manager. */
export interface RunningAgent {
  agent: Agent;
  manager: Manager;
  /** Settles when the manager has stopped (rejects if it failed). */
  done: Promise<void>;
  /** Stops the agent (as the process being killed would) and waits for it. */
  stop(): Promise<void>;
}

/**
 * Starts an agent in-process with its own Manager: no leader election, metrics and probes off, so
 * many agents (one per simulated node, each with its own private D-Bus) can share a process. To
 * simulate a reboot, `stop()` it and start a new one.
 */
export function startAgent(options: StartAgentOptions): RunningAgent {
  const { kubeConfig, logLevel, logger, ...agentOptions } = options;
  const manager = Manager.create({
    kubeConfig,
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    eventSource: 'reboot.capstan.dev/agent',
    eventsScope: AGENT_EVENTS_SCOPE,
    fieldManager: AGENT_MANAGER,
    logLevel: logLevel ?? 'silent',
    ...(logger ? { logger } : {}),
  });
  const agent = addAgent(manager, agentOptions);
  const abort = new AbortController();
  const done = manager.start(abort.signal);
  done.catch(() => {}); // observed through `done` or `stop()`
  return {
    agent,
    manager,
    done,
    stop: async () => {
      abort.abort();
      await done;
    },
  };
}
