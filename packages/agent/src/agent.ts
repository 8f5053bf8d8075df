/**
 * The update agent: a controller on its own Node (a field-selected informer), fed by a
 * reboot-needed source, whose reconcile asks {@link decide} for the next action and carries it out
 * (node patches, pod listing and evictions, the reboot through logind) until the answer is "wait".
 */
import { type Protocol, type ProtocolName, protocolOf } from '@capstan/reboot-protocol';
import {
  type Controller,
  isConflict,
  isNotFound,
  isTooManyRequests,
  type Logger,
  type LogLevel,
  Manager,
  type ManagerOptions,
  Node,
  Pod,
  type ReconcileContext,
  type Request,
  type Result,
} from '@capstan/runtime';
import { InhibitUnsupportedError, Logind } from './dbus/logind.js';
import { RebootFailedError } from './dbus/reboot-failed-error.js';
import {
  type AgentMemory,
  type AgentPhase,
  type AgentView,
  type Decision,
  type DecisionConfig,
  decide,
  INITIAL_MEMORY,
  labelValue,
  type NodeFacts,
  type NodePatch,
  type OsFacts,
  type PodFacts,
} from './decide.js';
import { AgentMetrics } from './metrics.js';
import { readOsRelease } from './os-release.js';
import type { RebootNeededSource, SourceStatus } from './sources/source.js';
import { UpdateEngineSource } from './sources/update-engine-source.js';

/** What reboots the machine; {@link Logind} by default. Must throw when the reboot is refused. */
export interface Rebooter {
  reboot(): Promise<void>;
}

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
  /** How often to look at evicted pods that are still terminating. Default 1 s. */
  podPollMs?: number;
  /** The clock (ms since the epoch); default `Date.now`. */
  now?: () => number;
}

/** What an agent is doing, for logs, tests and the demo. */
export interface AgentState {
  phase: AgentPhase | 'NotStarted';
  why: string;
  memory: AgentMemory;
  source: SourceStatus | undefined;
}

const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
const MAX_STEPS = 50;

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
  readonly metrics = new AgentMetrics();
  readonly controller: Controller;
  private readonly config: DecisionConfig;
  private readonly source: RebootNeededSource;
  private readonly rebooter: Rebooter;
  private readonly logind: Logind | undefined;
  private readonly now: () => number;
  private readonly log: Logger;
  private memory: AgentMemory = INITIAL_MEMORY;
  private sourceStatus: SourceStatus | undefined;
  private sourceKnown = false;
  private os: OsFacts | undefined;
  private last: Decision | undefined;
  private readonly listeners = new Set<(state: AgentState) => void>();

  constructor(
    private readonly manager: Manager,
    private readonly options: AgentOptions,
  ) {
    if (!options.nodeName) throw new RangeError('the agent needs a node name');
    this.nodeName = options.nodeName;
    this.protocol = protocolOf(options.protocol);
    this.now = options.now ?? Date.now;
    this.log = manager.logger.child({ agent: this.nodeName });
    this.config = {
      protocol: this.protocol,
      drainTimeoutMs: options.drainTimeoutMs ?? 10 * 60_000,
      forceReboot: options.forceReboot ?? false,
      failureBackoffMs: options.failureBackoffMs ?? 5 * 60_000,
      podPollMs: options.podPollMs ?? 1_000,
    };
    const address = options.busAddress !== undefined ? { address: options.busAddress } : {};
    this.source = options.source ?? new UpdateEngineSource(address);
    if (options.rebooter) this.rebooter = options.rebooter;
    else {
      this.logind = new Logind(address);
      this.rebooter = this.logind;
    }
    this.controller = manager
      .controllerBuilder()
      .named('reboot-agent')
      .for(Node, { fieldSelector: `metadata.name=${this.nodeName}` })
      .build({ reconcile: (request, context) => this.reconcile(request, context) });
    manager.add({ name: 'reboot-needed-source', start: (signal) => this.follow(signal) }, 'always');
    this.metrics.register(manager.metrics.registry);
  }

  /** The latest decision: phase, why, memory and the source's status. */
  get state(): AgentState {
    return {
      phase: this.last?.phase ?? 'NotStarted',
      why: this.last?.why ?? '',
      memory: this.memory,
      source: this.sourceStatus,
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
        this.sourceStatus = status;
        if (status.error === undefined) this.sourceKnown = true;
        else this.log.warn({ error: status.error }, 'reboot-needed source cannot tell');
        this.metrics.rebootNeeded.set(status.rebootNeeded ? 1 : 0);
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
      this.os = { id: os.id, version: labelValue(os.version) ?? labelValue(os.versionId) };
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
      return await this.logind.inhibit('shutdown', 'capstan-agent', 'recording the reboot', 'delay');
    } catch (err) {
      if (err instanceof InhibitUnsupportedError) this.log.debug({ err }, 'no inhibitor lock (skipped)');
      else this.log.info({ err }, 'could not take an inhibitor lock (optional; continuing)');
      return undefined;
    }
  }

  /** Decides and acts until the decision is to wait. */
  private async reconcile(request: Request, context: ReconcileContext): Promise<Result | undefined> {
    if (request.name !== this.nodeName) return undefined;
    let node: Node | undefined;
    let fresh = false;
    let pods: PodFacts[] | undefined;
    for (let step = 0; step < MAX_STEPS; step++) {
      if (context.signal.aborted) return undefined;
      if (!node) {
        try {
          node = await this.manager.client.get(Node, { name: this.nodeName }, { direct: true });
        } catch (err) {
          if (!isNotFound(err)) throw err;
          this.log.warn('my Node does not exist (yet)');
          return { requeueAfter: 30_000 };
        }
        fresh = true;
      }
      const view: AgentView = {
        now: this.now(),
        node: nodeFacts(node),
        source: this.sourceStatus,
        sourceKnown: this.sourceKnown,
        os: this.os,
        ...(pods ? { pods } : {}),
      };
      const decision = decide(view, this.memory, this.config);
      this.observe(decision);
      const action = decision.action;
      switch (action.kind) {
        case 'wait':
          this.memory = decision.memory;
          return action.recheckAfterMs !== undefined
            ? { requeueAfter: Math.ceil(action.recheckAfterMs) }
            : undefined;
        case 'patch': {
          let patched: Node;
          try {
            patched = await this.patchNode(node, action.patch);
          } catch (err) {
            if (!isConflict(err)) throw err;
            node = undefined; // someone else wrote: read again and decide again
            continue;
          }
          this.memory = decision.memory;
          if (action.failure === 'DrainFailed') this.metrics.drainFailures.inc();
          if (action.event) this.manager.events.record(Node, patched, action.event);
          if (action.failure || action.event?.type === 'Warning')
            this.log.warn({ why: decision.why }, decision.phase);
          node = patched;
          fresh = true;
          pods = undefined;
          continue;
        }
        case 'listPods':
          pods = await this.listPods();
          this.memory = decision.memory;
          fresh = false;
          continue;
        case 'evict':
          await this.evict(action.pods, node);
          pods = undefined;
          node = undefined;
          continue;
        case 'reboot':
          // Reboot only on what the API says right now: read the node once more if needed.
          if (!fresh) {
            node = undefined;
            continue;
          }
          await this.reboot(decision, node, action.forced);
          node = undefined;
          pods = undefined;
          continue;
      }
    }
    return { requeueAfter: 1_000 };
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

  /** A merge patch conditional on the resourceVersion the decision saw (Conflict otherwise). */
  private patchNode(node: Node, patch: NodePatch): Promise<Node> {
    const metadata: Record<string, unknown> = { resourceVersion: node.metadata.resourceVersion };
    if (Object.keys(patch.annotations).length > 0) metadata.annotations = patch.annotations;
    if (Object.keys(patch.labels).length > 0) metadata.labels = patch.labels;
    const body: Record<string, unknown> = { metadata };
    // Uncordoning removes the field, as `kubectl uncordon` leaves it.
    if (patch.unschedulable !== undefined) body.spec = { unschedulable: patch.unschedulable ? true : null };
    return this.manager.client.patch(Node, { name: this.nodeName }, 'merge', body);
  }

  private async listPods(): Promise<PodFacts[]> {
    const { items } = await this.manager.client.list(Pod, {
      fieldSelector: `spec.nodeName=${this.nodeName}`,
    });
    return items.map((pod) => ({
      namespace: pod.metadata.namespace ?? '',
      name: pod.metadata.name ?? '',
      uid: pod.metadata.uid ?? '',
      daemonSet: (pod.metadata.ownerReferences ?? []).some(
        (r) => r.controller === true && r.kind === 'DaemonSet',
      ),
      mirror: pod.metadata.annotations?.[MIRROR_ANNOTATION] !== undefined,
      terminating: pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null,
    }));
  }

  /** Evicts each pod once; a refusal (429) or error backs the next round off. */
  private async evict(pods: readonly PodFacts[], node: Node): Promise<void> {
    const grace = this.options.drainGracePeriodSeconds;
    const refused: string[] = [];
    for (const pod of pods) {
      try {
        await this.manager.client.evict(
          { namespace: pod.namespace, name: pod.name },
          {
            preconditions: { uid: pod.uid },
            ...(grace !== undefined && grace >= 0 ? { gracePeriodSeconds: grace } : {}),
          },
        );
        this.metrics.evictions.inc({ result: 'evicted' });
      } catch (err) {
        if (isNotFound(err) || isConflict(err)) {
          // Gone already, or replaced by a pod of the same name (the uid precondition failed).
          this.metrics.evictions.inc({ result: 'gone' });
        } else if (isTooManyRequests(err)) {
          this.metrics.evictions.inc({ result: 'blocked' });
          refused.push(`${pod.namespace}/${pod.name}`);
        } else {
          this.metrics.evictions.inc({ result: 'error' });
          this.log.warn({ err, pod: `${pod.namespace}/${pod.name}` }, 'eviction failed; retrying');
          refused.push(`${pod.namespace}/${pod.name}`);
        }
      }
    }
    const min = this.options.evictionRetryMinMs ?? 1_000;
    const max = this.options.evictionRetryMaxMs ?? 10_000;
    if (refused.length === 0) {
      this.memory = { ...this.memory, blockedRounds: 0, nextEvictionAt: undefined };
      return;
    }
    const rounds = this.memory.blockedRounds;
    const delay = Math.min(max, min * 2 ** Math.min(rounds, 30));
    this.memory = { ...this.memory, blockedRounds: rounds + 1, nextEvictionAt: this.now() + delay };
    if (rounds === 0) {
      this.manager.events.record(Node, node, {
        type: 'Warning',
        reason: 'EvictionBlocked',
        action: 'Drain',
        note: `eviction refused (a disruption budget allows none now) for ${refused.join(', ')}; retrying with backoff`,
      });
    }
  }

  /** Asks logind to reboot; a failure becomes a failure to report (event, annotation, metric). */
  private async reboot(decision: Decision, node: Node, forced: boolean): Promise<void> {
    this.manager.events.record(Node, node, {
      type: forced ? 'Warning' : 'Normal',
      reason: 'Rebooting',
      action: 'Reboot',
      note: decision.why,
    });
    try {
      await this.rebooter.reboot();
    } catch (err) {
      const reason = err instanceof RebootFailedError ? err.reason : 'error';
      const message = err instanceof Error ? err.message : String(err);
      this.metrics.rebootFailures.inc({ reason });
      this.log.error({ err }, 'reboot failed');
      this.memory = {
        ...this.memory,
        failure: { reason: 'RebootFailed', message: `reboot failed: ${message}` },
      };
      return;
    }
    this.metrics.reboots.inc();
    this.memory = decision.memory;
    this.log.info('logind accepted the reboot');
  }
}

/** The facts decisions read from a Node. */
export function nodeFacts(node: Node): NodeFacts {
  return {
    name: node.metadata.name ?? '',
    annotations: node.metadata.annotations ?? {},
    labels: node.metadata.labels ?? {},
    unschedulable: node.spec?.unschedulable === true,
    bootID: typeof node.status?.nodeInfo?.bootID === 'string' ? node.status.nodeInfo.bootID : '',
  };
}

/** Adds an agent for `options.nodeName` to `manager`; start the manager to run it. */
export function createAgent(manager: Manager, options: AgentOptions): Agent {
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
    fieldManager: 'capstan-agent',
    logLevel: logLevel ?? 'silent',
    ...(logger ? { logger } : {}),
  });
  const agent = new Agent(manager, agentOptions);
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
