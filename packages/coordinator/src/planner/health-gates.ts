/**
 * A group's health gates as the planner sees them: facts the coordinator read for the round
 * (`gate-facts.ts`), checked for one node before it is scheduled and again before it is granted.
 * Every gate fails closed: facts that could not be read block every node of the group, with why.
 */
import type { WaitReason } from '../api/reboot-group.js';

/** What the coordinator read for one group's gates this round. */
export interface GroupGateFacts {
  /** `blockingPods`: the matching pods (`namespace/name`) by the node they run on. */
  blockingPods?: Readonly<Record<string, readonly string[]>>;
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
  const pods = facts.blockingPods?.[node];
  if (pods && pods.length > 0) {
    const shown = pods.slice(0, 3).join(', ') + (pods.length > 3 ? `, and ${pods.length - 3} more` : '');
    return { reason: 'BlockingPods', message: `runs pods the blockingPods gate matches: ${shown}` };
  }
  return undefined;
}
