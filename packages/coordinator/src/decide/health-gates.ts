/**
 * A group's health gates as the planner sees them: facts the coordinator read for the round
 * (`gate-facts.ts`), checked for one node before it is scheduled and again before it is granted,
 * and (the Prometheus and conditions gates) once more before a rebooted node's slot frees.
 * Every gate fails closed: facts that could not be read block every node of the group, with why.
 */
import type { WaitReason } from '../api/reboot-group.js';

/** One Prometheus or conditions gate as read this round. */
export interface HealthGateState {
  /** `prometheus`, or `conditions[i]`. */
  gate: string;
  /** Open lets nodes through; Closed (the check said no) and Error (it could not be made) block. */
  state: 'Open' | 'Closed' | 'Error';
  message: string;
}

/** What the coordinator read for one group's gates this round. */
export interface GroupGateFacts {
  /** `blockingPods`: the matching pods (`namespace/name`) by the node they run on. */
  blockingPods?: Readonly<Record<string, readonly string[]>>;
  /** The group's Prometheus and conditions gates, group-wide. */
  health?: readonly HealthGateState[];
  /** A gate could not be read: every node waits (fail closed). */
  error?: string;
}

/** Why a node may not be scheduled or granted now, or `undefined` when every gate is open. */
export function closedGate(
  facts: GroupGateFacts | undefined,
  node: string,
): { reason: WaitReason; message: string } | undefined {
  if (facts === undefined) return undefined;
  if (facts.error !== undefined) return { reason: 'GateFailed', message: facts.error };
  const health = closedHealthGate(facts);
  if (health) return health;
  const pods = facts.blockingPods?.[node];
  if (pods && pods.length > 0) {
    const shown = pods.slice(0, 3).join(', ') + (pods.length > 3 ? `, and ${pods.length - 3} more` : '');
    return { reason: 'BlockingPods', message: `runs pods the blockingPods gate matches: ${shown}` };
  }
  return undefined;
}

/**
 * The first Prometheus or conditions gate that is not open (an erroring one first), or
 * `undefined`. A rebooted node keeps its slot while this answers something.
 */
export function closedHealthGate(
  facts: GroupGateFacts | undefined,
): { reason: WaitReason; message: string } | undefined {
  const health = facts?.health ?? [];
  const erroring = health.find((h) => h.state === 'Error');
  if (erroring) return { reason: 'GateFailed', message: `${erroring.gate}: ${erroring.message}` };
  const closed = health.find((h) => h.state !== 'Open');
  if (closed) return { reason: 'GateClosed', message: `${closed.gate}: ${closed.message}` };
  return undefined;
}
