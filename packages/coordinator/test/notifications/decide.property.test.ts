/**
 * The notification decision is pure: each landed transition is notified exactly once, in the
 * order the writes landed (so in order per node); a halt once per halt; a long wait once per
 * request, over any sequence of rounds.
 */
import { coordinatorKeys } from '@capstan/reboot-protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { QueueEntry } from '../../src/api/reboot-group.js';
import type { NodeWrite, PlannedAction } from '../../src/decide/node-write.js';
import {
  decideNotifications,
  FRESH_MEMORY,
  type NotifierMemory,
  type RoundFacts,
} from '../../src/notifications/decide.js';

const NODES = ['n0', 'n1', 'n2', 'n3'];
const ACTIONS: PlannedAction[] = [
  'Requested',
  'Scheduled',
  'Granted',
  'GrantAdopted',
  'RebootVerified',
  'Released',
  'Completed',
  'MarkedFailed',
  'SetAside',
  'HookTimedOut',
  'Normalized',
];
const NOTIFIED: Partial<Record<PlannedAction, string>> = {
  Scheduled: 'Scheduled',
  Granted: 'Granted',
  GrantAdopted: 'Granted',
  RebootVerified: 'Rebooted',
  Completed: 'Verified',
  MarkedFailed: 'Failed',
  SetAside: 'Failed',
};

const write = (node: string, actions: PlannedAction[]): NodeWrite => ({
  node,
  resourceVersion: '1',
  setAnnotations: actions.includes('MarkedFailed') ? { [coordinatorKeys.failed]: 'RebootNotVerified x' } : {},
  removeAnnotations: [],
  setLabels: {},
  removeLabels: [],
  consumesBudget: false,
  actions,
});

const writes = fc.array(
  fc.record({
    node: fc.constantFrom(...NODES),
    actions: fc.uniqueArray(fc.constantFrom(...ACTIONS), { maxLength: 3 }),
  }),
  { maxLength: 12 },
);

const round = (applied: NodeWrite[], extra: Partial<RoundFacts> = {}): RoundFacts => ({
  applied,
  membership: Object.fromEntries(NODES.map((n) => [n, 'g'])),
  halted: {},
  queues: {},
  waitingThresholdMs: {},
  now: 1_000_000,
  ...extra,
});

/** The events a write must produce, in order, one per distinct event. */
function expected(w: NodeWrite): string[] {
  const out: string[] = [];
  for (const a of w.actions) {
    const e = NOTIFIED[a];
    if (e && !out.includes(e)) out.push(e);
  }
  return out;
}

describe('decideNotifications', () => {
  it('notifies each landed transition once, in the order the writes landed', () => {
    fc.assert(
      fc.property(writes, (ws) => {
        const applied = ws.map((w) => write(w.node, w.actions));
        const { notifications } = decideNotifications(round(applied), FRESH_MEMORY);
        const want = applied.flatMap((w) => expected(w).map((e) => `${w.node}:${e}`));
        expect(notifications.map((n) => `${n.node}:${n.event}`)).toEqual(want);
        for (const node of NODES) {
          const mine = notifications.filter((n) => n.node === node).map((n) => n.event);
          expect(mine).toEqual(applied.filter((w) => w.node === node).flatMap(expected));
        }
      }),
    );
  });

  it('notifies a halt once when it starts, again only after it ended', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 20 }), (haltedEachRound) => {
        let memory: NotifierMemory = FRESH_MEMORY;
        let previous = false;
        for (const halted of haltedEachRound) {
          const r = decideNotifications(round([], { halted: halted ? { g: 'failed: n0' } : {} }), memory);
          memory = r.memory;
          const halts = r.notifications.filter((n) => n.event === 'Halted');
          expect(halts.length).toBe(halted && !previous ? 1 : 0);
          previous = halted;
        }
      }),
    );
  });

  it('notifies a long wait once per request, and never before the threshold', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 3_000 }),
        (steps, threshold) => {
          const requestedAt = new Date(0).toISOString();
          const entry: QueueEntry = {
            node: 'n0',
            requestedAt,
            reason: 'BudgetExhausted',
            message: 'budget 1 taken',
          };
          let memory: NotifierMemory = FRESH_MEMORY;
          let now = 0;
          let told = 0;
          for (const step of steps) {
            now += step;
            const r = decideNotifications(
              round([], { queues: { g: [entry] }, waitingThresholdMs: { g: threshold }, now }),
              memory,
            );
            memory = r.memory;
            const waits = r.notifications.filter((n) => n.event === 'Waiting').length;
            if (now < threshold) expect(waits).toBe(0);
            told += waits;
          }
          expect(told).toBe(now >= threshold ? 1 : 0);
        },
      ),
    );
  });

  it('notifies the wait of a new request again', () => {
    const entry = (requestedAt: string): QueueEntry => ({
      node: 'n0',
      requestedAt,
      reason: 'OutsideWindow',
      message: 'closed',
    });
    const facts = (at: string) => round([], { queues: { g: [entry(at)] }, waitingThresholdMs: { g: 1 } });
    const first = decideNotifications(facts('1970-01-01T00:00:00Z'), FRESH_MEMORY);
    const again = decideNotifications(facts('1970-01-01T00:00:00Z'), first.memory);
    const next = decideNotifications(facts('1970-01-01T00:00:01Z'), again.memory);
    expect([first, again, next].map((r) => r.notifications.length)).toEqual([1, 0, 1]);
    expect(first.notifications[0]?.reason).toBe('OutsideWindow: closed');
  });

  it('names the failure marker as the reason of a failure', () => {
    const { notifications } = decideNotifications(
      round([write('n1', ['MarkedFailed', 'SetAside'])]),
      FRESH_MEMORY,
    );
    expect(notifications).toEqual([
      { event: 'Failed', group: 'g', node: 'n1', reason: 'RebootNotVerified x', at: 1_000_000 },
    ]);
  });
});
