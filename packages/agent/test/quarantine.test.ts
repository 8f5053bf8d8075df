/** Reboot-loop quarantine as pure decisions: the history of cycles, and when the node stops asking. */
import {
  AGENT_QUARANTINED_ANNOTATION,
  AGENT_REBOOT_HISTORY_ANNOTATION,
  capstanProtocol,
  formatTimestamp,
} from '@capstan/reboot-protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DecisionConfig, INITIAL_MEMORY } from '../src/api/index.js';
import { decide } from '../src/decide/decide.js';
import { cyclesWithin, historyWith } from '../src/decide/quarantine.js';
import { midCycleAnnotations } from './fixtures.js';

const k = capstanProtocol.annotations;
const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const config = (after: number): DecisionConfig => ({
  protocol: capstanProtocol,
  drainTimeoutMs: 0,
  forceReboot: false,
  failureBackoffMs: 1_000,
  podPollMs: 1,
  quarantineAfter: after,
  quarantineWindowMs: 6 * HOUR,
});

/** A booted agent's decision on an idle node whose source asks, with this history. */
function idleAsking(history: number[], after: number, quarantined = false) {
  return decide(
    {
      now: NOW,
      node: {
        name: 'n1',
        annotations: {
          [k.rebootNeeded]: 'false',
          ...(history.length > 0
            ? { [AGENT_REBOOT_HISTORY_ANNOTATION]: history.map(formatTimestamp).join(',') }
            : {}),
          ...(quarantined ? { [AGENT_QUARANTINED_ANNOTATION]: 'then: a loop' } : {}),
        },
        labels: { [capstanProtocol.labels.rebootNeeded]: 'false' },
        unschedulable: false,
        bootID: 'b2',
      },
      source: { rebootNeeded: true },
      sourceKnown: true,
      os: undefined,
    },
    { ...INITIAL_MEMORY, booted: true },
    config(after),
  );
}

describe('reboot-loop quarantine', () => {
  it('counts a completed cycle at the first start after its reboot, within the window only', () => {
    const old = formatTimestamp(NOW - 7 * HOUR);
    const recent = formatTimestamp(NOW - HOUR);
    const d = decide(
      {
        now: NOW,
        node: {
          name: 'n1',
          annotations: {
            ...midCycleAnnotations('b1'),
            [AGENT_REBOOT_HISTORY_ANNOTATION]: `${old},${recent},garbage`,
          },
          labels: {},
          unschedulable: true,
          bootID: 'b2',
        },
        source: { rebootNeeded: true },
        sourceKnown: true,
        os: undefined,
      },
      INITIAL_MEMORY,
      config(3),
    );
    expect(d.action.kind === 'patch' && d.action.patch.annotations[AGENT_REBOOT_HISTORY_ANNOTATION]).toBe(
      `${recent},${formatTimestamp(NOW)}`,
    );
  });

  it('property: a node whose source asks is quarantined iff N cycles fell within the window', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 12 * HOUR }), { maxLength: 6 }),
        fc.integer({ min: 0, max: 4 }),
        (agoes, after) => {
          const history = agoes.map((ago) => NOW - ago);
          const within = history.filter((t) => NOW - t < 6 * HOUR).length;
          const d = idleAsking(history, after);
          const patch = d.action.kind === 'patch' ? d.action.patch : undefined;
          const quarantines = after > 0 && within >= after;
          expect(patch?.annotations[AGENT_QUARANTINED_ANNOTATION] !== undefined).toBe(quarantines);
          // Either way the annotation says the truth: asking unless quarantined.
          expect(patch?.annotations[k.rebootNeeded]).toBe(quarantines ? 'false' : 'true');
          if (quarantines) {
            expect(patch?.annotations[AGENT_REBOOT_HISTORY_ANNOTATION]).toBeNull();
            expect(d.action).toMatchObject({ event: { type: 'Warning', reason: 'Quarantined' } });
          }
        },
      ),
    );
  });

  it('a quarantined node asks no more until an administrator removes the annotation', () => {
    const d = idleAsking([], 3, true);
    expect(d.action).toEqual({ kind: 'wait' });
    expect(cyclesWithin(historyWith(undefined, NOW, HOUR), NOW, HOUR)).toBe(1);
  });
});
