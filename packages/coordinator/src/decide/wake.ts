/**
 * When the next round is due without any event: a grant or a hook wait reaching its timeout, a window opening
 * or a blackout ending
 * for a group whose nodes wait outside it, or at the latest the horizon (the resync period).
 * The rules are the group policy's (its grant timeout, its windows), not re-derived here.
 */
import { blackoutSpan, calendarAt } from '../api/reboot-calendar.js';
import type { GroupPolicy } from './group-policy.js';
import type { NodeFacts } from './node-state.js';

const MINUTE = 60_000;

/** What the wake-up is computed from. */
export interface WakeInput {
  now: number;
  /** The longest wait: the resync period. */
  horizonMs: number;
  /** Every group and the facts of its nodes as the round found them (before its writes). */
  groups: ReadonlyArray<{ policy: GroupPolicy; nodes: readonly NodeFacts[]; outsideWindowWaiting: boolean }>;
}

/** Milliseconds until the next time-based event (at least 1, at most the horizon). */
export function wakeAfter({ now, horizonMs, groups }: WakeInput): number {
  let wake = horizonMs;
  for (const { policy, nodes } of groups) {
    for (const f of nodes) {
      if (f.failed) continue;
      const dues = [
        f.grantedAt === undefined ? undefined : f.grantedAt + policy.grantTimeoutMs,
        f.hookWaitSince === undefined ? undefined : f.hookWaitSince + policy.hookTimeoutMs,
        f.settlingSince === undefined ? undefined : f.settlingSince + policy.settleTimeMs,
      ];
      for (const at of dues) if (at !== undefined && at > now) wake = Math.min(wake, at - now + 1);
    }
  }
  for (const { policy, outsideWindowWaiting } of groups) {
    if (!outsideWindowWaiting) continue;
    // Windows are minute-grained: look at each minute boundary until one is open; a blackout
    // may end between two.
    const ends = (Array.isArray(policy.spec.blackouts) ? policy.spec.blackouts : [])
      .map((b) => blackoutSpan(b)?.end)
      .filter((end): end is number => end !== undefined && end > now)
      .map((end) => end - now);
    for (let t = MINUTE - (now % MINUTE); t < wake; t += MINUTE) ends.push(t);
    for (const t of ends.sort((a, b) => a - b)) {
      if (t >= wake) break;
      if (calendarAt(policy.spec, now + t).open) {
        wake = Math.min(wake, t);
        break;
      }
    }
  }
  return Math.max(1, wake);
}
