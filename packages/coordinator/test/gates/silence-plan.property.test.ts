/**
 * The silences the coordinator asks of Alertmanager: every node holding a grant has exactly one
 * live silence after the actions (until its cap), none ends past its grant plus the maximum
 * duration, and a node no longer in flight has none left; `$NODE` is escaped for regex operators.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  matchersFor,
  type OwnSilence,
  planSilences,
  SILENCE_STEP_MS,
  type SilencedNode,
} from '../../src/silences/silence-plan.js';

const NOW = Date.UTC(2026, 0, 1);
const MIN = 60_000;
const names = ['n0', 'n1', 'n2', 'n3'];

const arbWanted = fc.subarray(names).chain((ns) =>
  fc.tuple(
    ...ns.map((node) =>
      fc.record({
        node: fc.constant(node),
        group: fc.constant('g'),
        grantedAt: fc.integer({ min: NOW - 120 * MIN, max: NOW }),
        matchers: fc.constant([{ name: 'node', value: '$NODE' }]),
        maxDurationMs: fc.constantFrom(5 * MIN, 30 * MIN, 60 * MIN),
      }),
    ),
  ),
);
const arbExisting = fc.array(
  fc.record({
    id: fc.uuid(),
    node: fc.constantFrom(...names),
    endsAt: fc.integer({ min: NOW + 1, max: NOW + 20 * MIN }),
  }),
  { maxLength: 6 },
);

/** The silences left once the actions are applied (Alertmanager's answer, by hand). */
function apply(existing: readonly OwnSilence[], actions: ReturnType<typeof planSilences>): OwnSilence[] {
  let live = [...existing];
  for (const a of actions) {
    if (a.kind === 'expire') live = live.filter((s) => s.id !== a.id);
    else if (a.kind === 'extend') live = live.map((s) => (s.id === a.id ? { ...s, endsAt: a.endsAt } : s));
    else live.push({ id: `new-${a.node}`, node: a.node, endsAt: a.endsAt });
  }
  return live;
}

describe('planSilences, property', () => {
  it('one live silence per node in flight until its cap, none beyond it, none for others', () => {
    fc.assert(
      fc.property(arbWanted, arbExisting, (wanted: SilencedNode[], existing) => {
        const actions = planSilences(wanted, existing, NOW);
        const live = apply(existing, actions);
        for (const w of wanted) {
          const mine = live.filter((s) => s.node === w.node);
          const cap = w.grantedAt + w.maxDurationMs;
          if (cap > NOW) {
            expect(mine).toHaveLength(1);
            expect(mine[0]?.endsAt).toBeGreaterThan(NOW);
          } else expect(mine).toEqual([]);
          for (const a of actions)
            if (a.kind !== 'expire' && a.node === w.node) expect(a.endsAt).toBeLessThanOrEqual(cap);
        }
        const inFlight = new Set(wanted.map((w) => w.node));
        expect(live.filter((s) => !inFlight.has(s.node))).toEqual([]);
        // Planning again after the actions changes nothing but extensions a step later.
        expect(planSilences(wanted, live, NOW).filter((a) => a.kind !== 'extend')).toEqual([]);
      }),
    );
  });

  it('extends a silence once less than half a step is left', () => {
    const w: SilencedNode = { node: 'n0', group: 'g', grantedAt: NOW, matchers: [], maxDurationMs: 60 * MIN };
    expect(planSilences([w], [{ id: 'a', node: 'n0', endsAt: NOW + SILENCE_STEP_MS }], NOW)).toEqual([]);
    expect(planSilences([w], [{ id: 'a', node: 'n0', endsAt: NOW + MIN }], NOW)).toEqual([
      expect.objectContaining({ kind: 'extend', id: 'a', endsAt: NOW + SILENCE_STEP_MS }),
    ]);
  });
});

describe('matchersFor', () => {
  it('fills in the node, escaped for regular expressions', () => {
    expect(
      matchersFor('node-1.example', [
        { name: 'node', value: '$NODE' },
        { name: 'instance', value: '$NODE:.*', operator: '=~' },
        { name: 'job', value: 'x', operator: '!=' },
      ]),
    ).toEqual([
      { name: 'node', value: 'node-1.example', isRegex: false, isEqual: true },
      { name: 'instance', value: 'node-1\\.example:.*', isRegex: true, isEqual: true },
      { name: 'job', value: 'x', isRegex: false, isEqual: false },
    ]);
  });
});
