/**
 * Reboot-loop quarantine: a node that completed `quarantineAfter` reboot cycles within
 * `quarantineWindowMs` and whose source still asks (kured #976: a sentinel no reboot clears) is
 * quarantined instead of asking again: annotation, Warning event, metric; it asks no more until
 * an administrator removes the annotation. The cycles are counted on the node
 * (`reboot-history`), so an agent restart (every reboot is one) keeps the count.
 */
import {
  AGENT_QUARANTINED_ANNOTATION,
  AGENT_REBOOT_HISTORY_ANNOTATION,
  FALSE,
  formatTimestamp,
  parseTimestamp,
} from '@capstan/reboot-protocol';
import { formatDuration } from '@capstan/runtime';
import type { Decision, DecisionConfig, NodeFacts } from '../api/types.js';
import type { PhaseInput } from './facts.js';

/** The cycle times in a history annotation; garbage entries are dropped. */
export function parseHistory(raw: string | undefined): number[] {
  if (!raw) return [];
  return raw
    .split(',')
    .map((t) => parseTimestamp(t.trim()))
    .filter((t): t is number => t !== undefined);
}

/** The history after a cycle completed at `now`: the cycles within the window, oldest first. */
export function historyWith(raw: string | undefined, now: number, windowMs: number): string {
  return [...parseHistory(raw), now]
    .filter((t) => t <= now && now - t < windowMs)
    .sort((a, b) => a - b)
    .map(formatTimestamp)
    .join(',');
}

/** Cycles completed within the window before `now`. */
export function cyclesWithin(raw: string | undefined, now: number, windowMs: number): number {
  return parseHistory(raw).filter((t) => t <= now && now - t < windowMs).length;
}

/** Whether an administrator has yet to clear the node's quarantine. */
export function isQuarantined(node: NodeFacts): boolean {
  return node.annotations[AGENT_QUARANTINED_ANNOTATION] !== undefined;
}

/** Whether a node whose source asks (`wanted`) is in a reboot loop to quarantine now. */
export function loopDetected(node: NodeFacts, wanted: boolean, now: number, config: DecisionConfig): boolean {
  const after = config.quarantineAfter ?? 0;
  if (!wanted || after <= 0 || isQuarantined(node)) return false;
  const windowMs = config.quarantineWindowMs ?? 0;
  return cyclesWithin(node.annotations[AGENT_REBOOT_HISTORY_ANNOTATION], now, windowMs) >= after;
}

/** Quarantines the node: writes why, stops asking, forgets the history. */
export function quarantining({ view, memory, config }: PhaseInput): Decision {
  const why = `${config.quarantineAfter} reboot cycles within ${formatDuration(config.quarantineWindowMs ?? 0)} and the source still asks for a reboot`;
  return {
    phase: 'Idle',
    why: `quarantined: ${why}`,
    action: {
      kind: 'patch',
      patch: {
        annotations: {
          [AGENT_QUARANTINED_ANNOTATION]: `${formatTimestamp(view.now)}: ${why}`,
          [AGENT_REBOOT_HISTORY_ANNOTATION]: null,
          [config.protocol.annotations.rebootNeeded]: FALSE,
        },
        labels: { [config.protocol.labels.rebootNeeded]: FALSE },
      },
      event: {
        type: 'Warning',
        reason: 'Quarantined',
        action: 'Quarantine',
        note: `${why} (a reboot loop): the node asks no more until ${AGENT_QUARANTINED_ANNOTATION} is removed`,
      },
    },
    memory,
  };
}
