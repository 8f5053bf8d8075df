/**
 * A fleet agent for scale tests: one process that plays the update agent for many Nodes (kwok's,
 * in envtest). It is no second implementation of the protocol: each node gets the agent's own
 * {@link AgentReconciler} (and so the agent's decisions, `decide.ts` and its phases, its node
 * writes, drain through the Eviction API and events), with its own memory, as if each node ran
 * its own agent. What differs is only what a machine would do: the reboot-needed source is set
 * from the test ({@link FleetAgent.setRebootNeeded}), and a reboot goes to the `reboot` it is
 * given (envtest's `rebootNode`), after which the node's agent starts afresh, as a process does
 * after a boot, with the new boot ID and a source that asks no more.
 *
 * Real agents stay in the small tests; this one is for fleets of thousands (one informer, one
 * work queue, `workers` reconciles at once, one metrics set for the whole fleet).
 */
import { protocolOf } from '@capstan/reboot-protocol';
import type { Controller, Manager, ReconcileContext, Request, Result } from '@capstan/runtime';
import { Node } from '@capstan/runtime/client';
import type { DecisionConfig } from '../api/types.js';
import { DEFAULT_EVICTION_RETRY } from '../decide/eviction-backoff.js';
import { AgentMetrics } from '../metrics.js';
import { decisionConfigOf } from '../operator.js';
import { AgentReconciler } from '../reconciler.js';

/** Options of a {@link FleetAgent}. */
export interface FleetAgentOptions {
  /** Reboots a node, resolving with its new boot ID once it is back (envtest's `rebootNode`). */
  reboot: (nodeName: string) => Promise<string>;
  /** Which Nodes it plays: a label selector; default every Node. */
  labelSelector?: string;
  /** Reconciles at once across the fleet; default 32. */
  workers?: number;
  /** The agents' decision settings; the agent's defaults otherwise (drain timeout 10 min, no force). */
  config?: Partial<DecisionConfig>;
  /** Called when a node's reboot failed (it stays down for the test to see); default: rethrown at stop. */
  onRebootError?: (nodeName: string, error: unknown) => void;
}

/** What the fleet did, for a bench's figures. */
export interface FleetCounts {
  /** Reboots asked of `reboot` (accepted by the node's "logind"). */
  rebootsAsked: number;
  /** Reboots that came back with a new boot ID. */
  rebootsDone: number;
  /** Nodes rebooting right now. */
  rebooting: number;
}

/** One node's agent: the agent's reconciler with the memory of its current "process". */
interface NodeAgent {
  reconciler: AgentReconciler;
  rebootNeeded: boolean;
}

/** The agent's update agent, played for many nodes by one manager. See the module notes. */
export class FleetAgent {
  /** The fleet's controller (one queue for every node). */
  readonly controller: Controller;
  /** The agents' metrics, shared by the fleet. */
  readonly metrics: AgentMetrics;
  private readonly agents = new Map<string, NodeAgent>();
  private readonly config: DecisionConfig;
  private readonly rebootErrors: Array<{ node: string; error: unknown }> = [];
  private readonly inFlight = new Set<Promise<void>>();
  private asked = 0;
  private done = 0;

  constructor(
    private readonly manager: Manager,
    private readonly options: FleetAgentOptions,
  ) {
    this.metrics = new AgentMetrics(manager.metrics.registry);
    this.config = decisionConfigOf(options.config?.protocol ?? protocolOf('capstan'), options.config ?? {});
    this.controller = manager
      .controllerBuilder()
      .named('fleet-agent')
      .for(Node, options.labelSelector ? { labelSelector: options.labelSelector } : {})
      .withOptions({ maxConcurrentReconciles: options.workers ?? 32 })
      .build({ reconcile: (request, context) => this.reconcile(request, context) });
  }

  /** What the fleet did so far. */
  get counts(): FleetCounts {
    return { rebootsAsked: this.asked, rebootsDone: this.done, rebooting: this.inFlight.size };
  }

  /** Says what the reboot-needed source of each named node answers (as update_engine would). */
  setRebootNeeded(nodeNames: readonly string[], needed: boolean): void {
    for (const name of nodeNames) {
      const agent = this.agentOf(name);
      agent.rebootNeeded = needed;
      agent.reconciler.sourceReported({ rebootNeeded: needed });
      this.controller.enqueue({ name }, 'reboot-needed source');
    }
  }

  /** Waits for the reboots under way; throws the first reboot that failed, if any. */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
    const failed = this.rebootErrors[0];
    if (failed) throw new Error(`rebooting ${failed.node} failed: ${String(failed.error)}`);
  }

  private reconcile(request: Request, context: ReconcileContext): Promise<Result | undefined> {
    return this.agentOf(request.name).reconciler.reconcile(request, context);
  }

  /** The node's agent, started (as its process would start) on first sight. */
  private agentOf(nodeName: string, machineBootId?: string): NodeAgent {
    let agent = this.agents.get(nodeName);
    if (agent === undefined || machineBootId !== undefined) {
      const rebootNeeded = machineBootId === undefined ? (agent?.rebootNeeded ?? false) : false;
      agent = { reconciler: this.newReconciler(nodeName, machineBootId), rebootNeeded };
      // A started agent's source answers at once; after a boot, the update is applied: no more asked.
      agent.reconciler.sourceReported({ rebootNeeded });
      this.agents.set(nodeName, agent);
    }
    return agent;
  }

  private newReconciler(nodeName: string, machineBootId: string | undefined): AgentReconciler {
    const { manager } = this;
    return new AgentReconciler({
      ...(machineBootId ? { machineBootId } : {}),
      nodeName,
      client: manager.client,
      events: manager.events,
      clock: manager.clock,
      log: manager.logger.child({ agent: nodeName }),
      metrics: this.metrics,
      rebooter: { reboot: async () => this.rebootLater(nodeName) },
      config: this.config,
      evictionRetry: DEFAULT_EVICTION_RETRY,
    });
  }

  /**
   * The node's "logind" accepted the reboot: the machine goes down behind the agent's back and
   * comes back later; then its agent starts afresh with the new boot ID.
   */
  private rebootLater(nodeName: string): void {
    this.asked++;
    const going = this.options
      .reboot(nodeName)
      .then((bootId) => {
        this.done++;
        this.agentOf(nodeName, bootId);
        this.controller.enqueue({ name: nodeName }, 'agent started after a boot');
      })
      .catch((error: unknown) => {
        if (this.options.onRebootError) this.options.onRebootError(nodeName, error);
        else this.rebootErrors.push({ node: nodeName, error });
      })
      .finally(() => this.inFlight.delete(going));
    this.inFlight.add(going);
  }
}
