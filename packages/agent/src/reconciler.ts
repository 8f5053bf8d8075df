/**
 * The agent's reconciler: reads its Node (and, while draining, its pods), asks {@link decide} for
 * the next action, carries it out (a conditional node patch, pod listing and evictions, the
 * reboot through logind), and decides again until the answer is "wait".
 *
 * Every node write is a merge patch carrying the resourceVersion the decision saw: a decision
 * made from a stale read never lands (Conflict), the node is read again and decided again. The
 * reboot is asked only right after a fresh read of the node.
 */
import { readFileSync } from 'node:fs';
import { AGENT_QUARANTINED_ANNOTATION } from '@capstan/reboot-protocol';
import {
  type BackoffCurve,
  type Client,
  type Clock,
  conditionalMergePatch,
  type EventRecorder,
  evictPods,
  isConflict,
  isNotFound,
  type Logger,
  nodePodDrainFacts,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from '@capstan/runtime';
import { Node } from '@capstan/runtime/client';
import {
  type AgentAction,
  type AgentMemory,
  type AgentView,
  type Decision,
  type DecisionConfig,
  INITIAL_MEMORY,
  type NodeFacts,
  type OsFacts,
  type PodFacts,
} from './api/types.js';
import { RebootFailedError } from './dbus/reboot-failed-error.js';
import { decide } from './decide/decide.js';
import { afterEvictions } from './decide/eviction-backoff.js';
import { afterRebootRefused } from './decide/reboot-retry.js';
import type { AgentMetrics } from './metrics.js';
import { conditionUpdates } from './node-conditions.js';
import type { SourceStatus } from './sources/source.js';

/** What reboots the machine; `Logind` by default. Must throw when the reboot is refused. */
export interface Rebooter {
  reboot(): Promise<void>;
}

/** What the reconciler needs. */
export interface AgentReconcilerDeps {
  nodeName: string;
  client: Client;
  events: EventRecorder;
  clock: Clock;
  log: Logger;
  metrics: AgentMetrics;
  rebooter: Rebooter;
  config: DecisionConfig;
  /** Grace period given to evicted pods, in seconds; negative or absent uses each pod's own. */
  drainGracePeriodSeconds?: number;
  /** Delays between eviction rounds that were refused. */
  evictionRetry: BackoffCurve;
  /** Evictions in flight at once; default 10. */
  evictionParallelism?: number;
  /** One eviction request's time limit (then counted as an error and retried); default 30 s. */
  evictionTimeoutMs?: number;
  /** This machine's boot ID (see {@link readMachineBootId}); absent: the Node's status says. */
  machineBootId?: string;
  /** Called with every decision, before it is carried out. */
  onDecision?: (decision: Decision) => void;
}

type PatchAction = Extract<AgentAction, { kind: 'patch' }>;

/** Steps of one reconcile before it hands the node back to the queue (a second later). */
const MAX_STEPS = 50;

/** Where Linux tells the boot ID of the running kernel. */
export const MACHINE_BOOT_ID_PATH = '/proc/sys/kernel/random/boot_id';

/** The machine's boot ID from `path`; undefined when it cannot be read (or is empty). */
export function readMachineBootId(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The facts decisions read from a Node. `machineBootId`, when known, is the boot ID: after a
 * reboot the kubelet may not have posted the new one yet, and the old one would make a grant
 * for the previous boot look like this boot's (a second reboot).
 */
export function nodeFacts(node: Node, machineBootId?: string): NodeFacts {
  return {
    name: node.metadata.name ?? '',
    annotations: node.metadata.annotations ?? {},
    labels: node.metadata.labels ?? {},
    unschedulable: node.spec?.unschedulable === true,
    bootID:
      machineBootId ?? (typeof node.status?.nodeInfo?.bootID === 'string' ? node.status.nodeInfo.bootID : ''),
  };
}

/** The update agent's reconciler, for its own Node. */
export class AgentReconciler implements Reconciler {
  /** What the agent remembers in this process (see {@link AgentMemory}). */
  memory: AgentMemory = INITIAL_MEMORY;
  /** The reboot-needed source's latest status. */
  source: SourceStatus | undefined;
  /** Whether the source ever reported without error. */
  sourceKnown = false;
  /** Why the source cannot tell, while it cannot. */
  sourceError: string | undefined;
  /** What os-release says, once read. */
  os: OsFacts | undefined;
  /** Why the node conditions could not be written last time (logged once per message). */
  private conditionError: string | undefined;

  constructor(private readonly deps: AgentReconcilerDeps) {}

  /** Records a status from the reboot-needed source. */
  sourceReported(status: SourceStatus): void {
    this.deps.metrics.sourceError.set(status.error !== undefined ? 1 : 0);
    // A source that cannot tell (D-Bus down) says nothing new: the last known answer stands,
    // and why it cannot tell is reported (annotation, event, metric).
    if (status.error !== undefined) {
      this.sourceError = status.error;
      this.deps.log.warn(
        { error: status.error },
        'reboot-needed source cannot tell; keeping the last answer',
      );
      return;
    }
    this.sourceError = undefined;
    this.source = status;
    this.sourceKnown = true;
    this.deps.metrics.rebootNeeded.set(status.rebootNeeded ? 1 : 0);
  }

  /** Decides and acts until the decision is to wait. */
  async reconcile(request: Request, context: ReconcileContext): Promise<Result | undefined> {
    const { nodeName } = this.deps;
    if (request.name !== nodeName) return undefined;
    let node: Node | undefined;
    let fresh = false;
    let pods: PodFacts[] | undefined;
    for (let step = 0; step < MAX_STEPS; step++) {
      if (context.signal.aborted) return undefined;
      if (!node) {
        try {
          node = await this.deps.client.get(Node, { name: nodeName }, { direct: true });
        } catch (err) {
          if (!isNotFound(err)) throw err;
          this.deps.log.warn('my Node does not exist (yet)');
          return { requeueAfter: 30_000 };
        }
        fresh = true;
      }
      if (fresh) node = await this.syncConditions(node);
      const decision = decide(this.viewOf(node, pods), this.memory, this.deps.config);
      this.deps.onDecision?.(decision);
      const action = decision.action;
      switch (action.kind) {
        case 'wait':
          this.memory = decision.memory;
          return action.recheckAfterMs !== undefined
            ? { requeueAfter: Math.ceil(action.recheckAfterMs) }
            : undefined;
        case 'patch': {
          node = await this.patch(node, decision, action);
          fresh = node !== undefined;
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
          if (fresh) {
            await this.reboot(decision, node, action.forced);
            pods = undefined;
          }
          node = undefined;
          continue;
      }
    }
    return { requeueAfter: 1_000 };
  }

  private viewOf(node: Node, pods: PodFacts[] | undefined): AgentView {
    this.deps.metrics.quarantined.set(
      node.metadata.annotations?.[AGENT_QUARANTINED_ANNOTATION] !== undefined ? 1 : 0,
    );
    return {
      now: this.deps.clock.now(),
      node: nodeFacts(node, this.deps.machineBootId),
      source: this.source,
      sourceKnown: this.sourceKnown,
      ...(this.sourceError !== undefined ? { sourceError: this.sourceError } : {}),
      os: this.os,
      ...(pods ? { pods } : {}),
    };
  }

  /**
   * Writes the agent's Node conditions where its annotations say something new (quarantined, the
   * source cannot tell, or either ended). A failed write is logged (once per message) and the
   * cycle goes on: the annotations, events and metrics say the same.
   */
  private async syncConditions(node: Node): Promise<Node> {
    const now = this.deps.clock.now();
    const conditions = conditionUpdates(node.status?.conditions, node.metadata.annotations ?? {}, now);
    if (conditions.length === 0) return node;
    try {
      const body = { status: { conditions } };
      const patched = await this.deps.client.patchStatus(
        Node,
        { name: this.deps.nodeName },
        'strategic',
        body,
      );
      this.conditionError = undefined;
      return patched;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== this.conditionError) this.deps.log.warn({ err }, 'could not write the node conditions');
      this.conditionError = message;
      return node;
    }
  }

  /** Writes a decision's patch; the patched node, or undefined when someone else wrote first. */
  private async patch(node: Node, decision: Decision, action: PatchAction): Promise<Node | undefined> {
    const { patch, failure, event } = action;
    // Uncordoning removes the field, as `kubectl uncordon` leaves it.
    const spec =
      patch.unschedulable === undefined ? {} : { spec: { unschedulable: patch.unschedulable ? true : null } };
    let patched: Node;
    try {
      const body = conditionalMergePatch(node.metadata.resourceVersion, patch, spec);
      patched = await this.deps.client.patch(Node, { name: this.deps.nodeName }, 'merge', body);
    } catch (err) {
      if (!isConflict(err)) throw err;
      return undefined; // someone else wrote: read again and decide again
    }
    this.memory = decision.memory;
    if (failure === 'DrainFailed') this.deps.metrics.drainFailures.inc();
    if (failure === 'VersionMismatch') this.deps.metrics.versionMismatches.inc();
    if (event) this.deps.events.record(Node, patched, event);
    if (failure || event?.type === 'Warning') this.deps.log.warn({ why: decision.why }, decision.phase);
    return patched;
  }

  private listPods(): Promise<PodFacts[]> {
    return nodePodDrainFacts(this.deps.client, this.deps.nodeName);
  }

  /**
   * Evicts each pod once through the runtime's `evictPods`, up to `evictionParallelism` at a time,
   * each given `evictionTimeoutMs`; a refusal (429), an error or a timeout backs the next round off.
   */
  private async evict(pods: readonly PodFacts[], node: Node): Promise<void> {
    const { metrics, clock } = this.deps;
    const round = await evictPods(this.deps.client, pods, {
      clock,
      parallelism: this.deps.evictionParallelism ?? 10,
      timeoutMs: this.deps.evictionTimeoutMs ?? 30_000,
      ...(this.deps.drainGracePeriodSeconds !== undefined
        ? { gracePeriodSeconds: this.deps.drainGracePeriodSeconds }
        : {}),
    });
    const refused: string[] = [];
    for (const { pod, outcome } of round) {
      const name = `${pod.namespace}/${pod.name}`;
      metrics.evictions.inc({ result: outcome.result });
      if (outcome.result === 'error')
        this.deps.log.warn({ err: outcome.error, pod: name }, 'eviction failed; retrying');
      if (outcome.result === 'blocked' || outcome.result === 'error') refused.push(name);
    }
    const after = afterEvictions(this.memory, refused, clock.now(), this.deps.evictionRetry);
    this.memory = after.memory;
    if (after.event) this.deps.events.record(Node, node, after.event);
  }

  /** Asks the rebooter (logind, a command, a signal) to reboot; a failure becomes a failure to report (event, annotation, metric). */
  private async reboot(decision: Decision, node: Node, forced: boolean): Promise<void> {
    this.deps.events.record(Node, node, {
      type: forced ? 'Warning' : 'Normal',
      reason: 'Rebooting',
      action: 'Reboot',
      note: decision.why,
    });
    try {
      await this.deps.rebooter.reboot();
    } catch (err) {
      const reason = err instanceof RebootFailedError ? err.reason : 'error';
      const message = err instanceof Error ? err.message : String(err);
      this.deps.metrics.rebootFailures.inc({ reason });
      this.deps.log.error({ err }, 'reboot failed');
      this.memory = afterRebootRefused(this.memory, message);
      return;
    }
    this.deps.metrics.reboots.inc();
    this.memory = decision.memory;
    this.deps.log.info('the reboot was accepted');
  }
}
