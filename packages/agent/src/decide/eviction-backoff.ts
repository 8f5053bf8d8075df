/**
 * Backoff between rounds of evictions: a round in which the API refused some (429: a disruption
 * budget allows none now) or failed waits `initialMs × 2^rounds` (capped) before the next, so a
 * blocked drain neither hammers the API server nor stalls; a clean round forgets the refusals.
 */
import { type BackoffCurve, backoffDelay } from '@capstan/runtime';
import type { AgentMemory, EventSpec } from '../api/types.js';

/** The eviction retry delays unless configured: 1 s doubling up to 10 s. */
export const DEFAULT_EVICTION_RETRY: BackoffCurve = Object.freeze({ initialMs: 1_000, maxMs: 10_000 });

/**
 * The memory after a round of evictions, and the event to record when a round is the first
 * refused in a row (once per blocked streak, not once per retry).
 * @param refused the pods (`namespace/name`) whose eviction was refused or failed.
 */
export function afterEvictions(
  memory: AgentMemory,
  refused: readonly string[],
  now: number,
  retry: BackoffCurve = DEFAULT_EVICTION_RETRY,
): { memory: AgentMemory; event?: EventSpec } {
  if (refused.length === 0) return { memory: { ...memory, blockedRounds: 0, nextEvictionAt: undefined } };
  const rounds = memory.blockedRounds;
  const next: AgentMemory = {
    ...memory,
    blockedRounds: rounds + 1,
    nextEvictionAt: now + backoffDelay(rounds, retry),
  };
  if (rounds > 0) return { memory: next };
  return {
    memory: next,
    event: {
      type: 'Warning',
      reason: 'EvictionBlocked',
      action: 'Drain',
      note: `eviction refused (a disruption budget allows none now) for ${refused.join(', ')}; retrying with backoff`,
    },
  };
}
