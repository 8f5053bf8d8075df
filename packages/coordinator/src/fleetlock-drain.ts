/**
 * The coordinator's drain of a FleetLock client's node (Zincati has no agent to do it). While the
 * client's node holds its slot (scheduled) and asks, each pre-reboot poll moves the drain one step:
 * cordon (recording that the coordinator made it, {@link FLEETLOCK_CORDONED_KEY}), evict every
 * pod but DaemonSet and mirror pods through the eviction API (PodDisruptionBudgets respected; a
 * refused eviction is retried with its pod's own backoff), wait until the evicted pods are gone, then mark the node
 * drained ({@link FLEETLOCK_DRAINED_KEY}), which the planner requires before the grant. The drain
 * rules are the runtime's, shared with the agent. A node that is not scheduled any more (revoked,
 * its hook timeout passed) is uncordoned if the coordinator cordoned it.
 */
import { TRUE } from '@capstan/reboot-protocol';
import {
  type BackoffCurve,
  type Client,
  type Clock,
  drainPlan,
  EvictionBackoff,
  evictPods,
  type Logger,
  nodePodDrainFacts,
} from '@capstan/runtime';
import type { Node } from '@capstan/runtime/client';
import {
  FLEETLOCK_CORDONED_KEY,
  FLEETLOCK_DRAINED_KEY,
  FLEETLOCK_HOLDER_KEY,
} from './decide/fleetlock-hooks.js';
import type { OwnWrites } from './fleetlock-clients.js';
import { editNode, type NodeEdit } from './fleetlock-node-edit.js';
import type { CoordinatorMetrics } from './metrics.js';

/** Delays between a pod's refused evictions: 1 s doubling up to 10 s (the agent's defaults). */
const EVICTION_RETRY: BackoffCurve = { initialMs: 1_000, maxMs: 10_000 };

/** What the drainer needs. */
export interface DrainerDeps {
  client: Client;
  clock: Clock;
  writes: OwnWrites;
  /** The protocol's before-reboot label (the node is scheduled) and reboot-ok annotation. */
  keys: { beforeReboot: string; rebootOk: string };
  metrics?: CoordinatorMetrics;
  logger?: Logger;
}

/** The uncordon edit for a node the coordinator cordoned; `undefined` otherwise. */
export function uncordonEdit(node: Node): NodeEdit | undefined {
  const a = node.metadata.annotations ?? {};
  if (a[FLEETLOCK_CORDONED_KEY] === undefined) return undefined;
  return {
    annotations: { [FLEETLOCK_CORDONED_KEY]: null, [FLEETLOCK_DRAINED_KEY]: null },
    ...(node.spec?.unschedulable === true ? { unschedulable: false } : {}),
  };
}

/** Drains FleetLock clients' scheduled nodes, one step per call. */
export class FleetLockDrainer {
  /** Per node being drained: each pod's eviction backoff. */
  private readonly backoff = new Map<string, EvictionBackoff>();

  constructor(private readonly deps: DrainerDeps) {}

  /** One step of the drain of the client `id`'s node, or its uncordon once it is not scheduled. */
  async step(node: Node, id: string): Promise<void> {
    const name = node.metadata.name as string;
    const a = node.metadata.annotations ?? {};
    // Granted (or on its way back): in flight, uncordoned at steady-state.
    if (a[FLEETLOCK_HOLDER_KEY] !== id || a[this.deps.keys.rebootOk] === TRUE) return;
    const scheduled = node.metadata.labels?.[this.deps.keys.beforeReboot] === TRUE;
    if (!scheduled) {
      this.backoff.delete(name);
      if (uncordonEdit(node))
        await this.edit(name, (n) => (isOurClient(n, id) ? uncordonEdit(n) : undefined));
      return;
    }
    if (a[FLEETLOCK_DRAINED_KEY] === TRUE) return;
    if (node.spec?.unschedulable !== true) {
      // Cordon first, recording that we made it (an admin's cordon is never ours to lift).
      await this.edit(name, (n) =>
        isOurClient(n, id) && n.spec?.unschedulable !== true
          ? { annotations: { [FLEETLOCK_CORDONED_KEY]: TRUE }, unschedulable: true }
          : undefined,
      );
      return;
    }
    const plan = drainPlan(await nodePodDrainFacts(this.deps.client, name));
    if (plan.evict.length === 0 && plan.terminating.length === 0) {
      this.backoff.delete(name);
      await this.edit(name, (n) =>
        isOurClient(n, id) ? { annotations: { [FLEETLOCK_DRAINED_KEY]: TRUE } } : undefined,
      );
      return;
    }
    const backoff = this.backoff.get(name) ?? new EvictionBackoff(EVICTION_RETRY);
    this.backoff.set(name, backoff);
    backoff.retain(plan.evict);
    const round = await evictPods(this.deps.client, plan.evict, { clock: this.deps.clock, backoff });
    for (const { pod, outcome } of round) {
      this.deps.metrics?.fleetlockEvictions.inc({ result: outcome.result });
      if (outcome.result === 'error')
        this.deps.logger?.warn(
          { err: outcome.error, pod: `${pod.namespace}/${pod.name}` },
          'eviction failed',
        );
    }
  }

  private edit(name: string, change: (node: Node) => NodeEdit | undefined): Promise<void> {
    return editNode(this.deps, name, change);
  }
}

function isOurClient(node: Node, id: string): boolean {
  return node.metadata.annotations?.[FLEETLOCK_HOLDER_KEY] === id;
}
