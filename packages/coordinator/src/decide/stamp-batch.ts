/**
 * How many new asks' stamps one round writes. A stamp (`requested-at`: when the coordinator first
 * saw a node ask, its place in the queue) is a write of its own, and a round writes the slots it
 * takes after everything else (`plan.ts` `orderWrites`). When a fleet asks at once (a channel's
 * update reaching every agent), a round would stamp every ask it saw, one patch after another
 * (~5 ms of the apiserver's CPU each on the bench's machine: seconds at a thousand), and its
 * grants and releases would wait behind them. So a round writes at most {@link STAMPS_PER_ROUND}
 * stamps, those of the groups ordered first (whose grants come first), and the next round, at
 * once, writes more.
 *
 * What this keeps:
 * 1. Every write that is not only a stamp goes out, in the plan's order: grants, releases, failure
 *    marks and the writes that keep or free a slot are never held back.
 * 2. The stamps sent are a subset of the plan's, in its order; each that waits is planned again by
 *    the next round, from a world in which it is still unstamped.
 * 3. A stamp that waits only moves its node back in its own group's queue, behind the nodes of that
 *    group stamped before it; a queue is a group's own, and groups never share slots.
 */
import type { NodeWrite } from './node-write.js';

/** The most new asks' stamps a round writes. */
export const STAMPS_PER_ROUND = 32;

/** Whether `write` does nothing but stamp a new ask. */
export function isStampOnly(write: NodeWrite): boolean {
  return !write.consumesBudget && write.actions.length === 1 && write.actions[0] === 'Requested';
}

/**
 * The writes a round sends: every write that is not only a stamp, and of the stamps the `max`
 * whose `rank` is lowest (a node's group order; ties in plan order), all in the plan's order.
 * `deferred` counts the stamps left for the next round.
 */
export function boundStamps(
  writes: readonly NodeWrite[],
  max: number,
  rank: (node: string) => number,
): { writes: NodeWrite[]; deferred: number } {
  const stamps = writes.filter(isStampOnly);
  if (stamps.length <= max) return { writes: [...writes], deferred: 0 };
  // A stable sort: ties (and two unranked nodes, whose difference is NaN) keep the plan's order.
  const sent = new Set([...stamps].sort((a, b) => rank(a.node) - rank(b.node)).slice(0, Math.max(0, max)));
  const kept = writes.filter((w) => !isStampOnly(w) || sent.has(w));
  return { writes: kept, deferred: writes.length - kept.length };
}
