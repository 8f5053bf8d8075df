/**
 * The planner with health gates (each round's states drawn at random: open, closed, erroring,
 * pods blocking a node), hook deadlines, settle time and the failure policy, round after round on
 * random fleets whose nodes do nothing but what the coordinator writes (the worst case for
 * deadlines: no hook ever answers by itself, no agent ever reboots): it never exceeds a budget,
 * never grants a set-aside node, never sets aside more than `maxFailed`, and never holds a slot
 * past a deadline. Read with the fixtures' independent oracles, not the planner's own facts.
 */
import { capstanProtocol, parseTimestamp } from '@capstan/reboot-protocol';
import { readDuration } from '@capstan/runtime';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GroupGateFacts } from '../../src/decide/health-gates.js';
import {
  applyWrite,
  type NamedRebootGroup,
  type NodeSnapshot,
  plan,
  type RebootGroupSpec,
} from '../../src/index.js';
import { A, arbGroups, arbNodes, budgetOracle, countsOracle, K, L, MINUTE, NOW } from './fixtures.js';
import { groupOf } from './scenes.js';

/** Counts against its group's budget (the fixtures' oracle), unless set aside (out of the group). */
const counts = (n: NodeSnapshot): boolean =>
  countsOracle(n) && !(n.annotations[K.setAside] !== undefined && n.annotations[K.failed] !== undefined);
const isSetAside = (n: NodeSnapshot): boolean =>
  n.annotations[K.setAside] !== undefined && n.annotations[K.failed] !== undefined;

/** maxFailed resolved by hand: absent 1, a count as is, a percentage rounded down. */
function maxFailedOracle(v: RebootGroupSpec['maxFailed'], size: number): number {
  if (v === undefined) return 1;
  if (typeof v === 'number') return v;
  return Math.floor((size * Number(v.replace('%', ''))) / 100);
}

const arbPolicy = fc.record({
  hookTimeout: fc.constantFrom(undefined, '10m', '30m'),
  settleTime: fc.constantFrom(undefined, '0s', '5m', '20m'),
  onFailure: fc.constantFrom(undefined, 'Halt' as const, 'SetAside' as const, 'SetAside' as const),
  maxFailed: fc.constantFrom(undefined, 0, 1, 2, '50%'),
});

/** One group's gates as read for a round: none, a health gate in each state, or pods blocking a node. */
const arbGate: fc.Arbitrary<GroupGateFacts | undefined> = fc.oneof(
  fc.constant(undefined),
  fc
    .constantFrom('Open' as const, 'Closed' as const, 'Error' as const)
    .map((state) => ({ health: [{ gate: 'prometheus', state, message: state }] })),
  fc.integer({ min: 0, max: 7 }).map((i) => ({ blockingPods: { [`node-${i}`]: ['default/pinned'] } })),
  fc.constant({ error: 'blockingPods gate: pods could not be listed' }),
);

/** A gate that lets nothing through: a read error, or a health gate not Open. */
const shut = (f: GroupGateFacts | undefined): boolean =>
  f?.error !== undefined || (f?.health ?? []).some((h) => h.state !== 'Open');

const arbFleet = fc.record({
  nodes: arbNodes(capstanProtocol, 8).chain((nodes) =>
    fc
      .tuple(...nodes.map(() => fc.record({ wait: fc.integer({ min: -1, max: 60 }), aside: fc.boolean() })))
      .map((extras) =>
        nodes.map((n, i): NodeSnapshot => {
          const { wait, aside } = extras[i] as { wait: number; aside: boolean };
          const annotations = { ...n.annotations };
          if (wait >= 0) annotations[K.hookWaitSince] = new Date(NOW - wait * MINUTE).toISOString();
          if (aside && annotations[K.failed] !== undefined)
            annotations[K.setAside] = annotations[K.failed] as string;
          return { ...n, annotations };
        }),
      ),
  ),
  groups: fc
    .tuple(arbGroups(), fc.array(arbPolicy, { minLength: 3, maxLength: 3 }))
    .map(([groups, policies]): NamedRebootGroup[] =>
      groups.map((g, i) => {
        const spec: RebootGroupSpec = { ...g.spec };
        for (const [k, v] of Object.entries(policies[i] ?? {}))
          if (v !== undefined) Object.assign(spec, { [k]: v });
        return { ...g, spec };
      }),
    ),
  steps: fc.array(
    fc.record({
      advance: fc.integer({ min: 0, max: 40 }),
      gates: fc.array(arbGate, { minLength: 3, maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 6 },
  ),
});

/** Scheduled and not yet granted: the before-reboot label, and no grant or its records. */
const scheduledOracle = (n: NodeSnapshot): boolean =>
  n.labels[L.beforeReboot] === 'true' &&
  n.labels[L.afterReboot] !== 'true' &&
  n.annotations[A.rebootOk] !== 'true' &&
  n.annotations[K.grantedAt] === undefined &&
  n.annotations[K.grantedBootId] === undefined;

const hooksTrue = (n: NodeSnapshot, hooks: readonly string[] | undefined) =>
  (hooks ?? []).every((h) => n.annotations[h] === 'true');

describe('safety with gates, deadlines, settle time and the failure policy', () => {
  it('keeps every budget, never grants a set-aside node nor past a shut gate, sets aside at most maxFailed, holds no slot past a deadline', () => {
    let grantsSeen = 0;
    let deadlinesSeen = 0;
    let asideSeen = 0;
    let shutSeen = 0;
    fc.assert(
      fc.property(arbFleet, ({ nodes: start, groups, steps }) => {
        let nodes = start;
        let now = NOW;
        for (const { advance, gates: states } of steps) {
          now += advance * MINUTE;
          const gates: Record<string, GroupGateFacts> = {};
          groups.forEach((g, i) => {
            const state = states[i];
            if (state) gates[g.name] = state;
          });
          const result = plan({ nodes, groups, now, gates });
          shutSeen += Object.values(gates).filter(shut).length;
          let current = nodes;
          for (const w of result.writes) {
            const g = result.membership[w.node] as string;
            const spec = groupOf(groups, g);
            const mine = (ns: readonly NodeSnapshot[]) => ns.filter((n) => result.membership[n.name] === g);
            const budget = budgetOracle(
              spec.maxUnavailable as number | string | undefined,
              mine(current).length,
            );
            const before = mine(current).filter(counts).length;
            const node = current.find((n) => n.name === w.node) as NodeSnapshot;
            const next = current.map((n) => (n.name === w.node ? applyWrite(n, w) : n));
            expect(mine(next).filter(counts).length).toBeLessThanOrEqual(Math.max(budget, before));
            const after = next.find((n) => n.name === w.node) as NodeSnapshot;
            if (w.setAnnotations[A.rebootOk] === 'true' && node.annotations[A.rebootOk] !== 'true') {
              grantsSeen++;
              expect(isSetAside(node)).toBe(false);
              // Never past a shut gate, nor onto a node a blocking pod pins.
              expect(shut(gates[g])).toBe(false);
              expect(gates[g]?.blockingPods?.[w.node]).toBeUndefined();
              expect(isSetAside(after)).toBe(false);
            }
            current = next;
          }
          for (const g of Object.keys(result.groupStatus)) {
            const spec = groupOf(groups, g);
            const mine = current.filter((n) => result.membership[n.name] === g);
            const asideBefore = nodes.filter((n) => result.membership[n.name] === g && isSetAside(n)).length;
            const aside = mine.filter(isSetAside).length;
            asideSeen += aside;
            const limit = spec.onFailure === 'SetAside' ? maxFailedOracle(spec.maxFailed, mine.length) : 0;
            expect(aside).toBeLessThanOrEqual(Math.max(limit, asideBefore));
            const timeout = readDuration(spec.hookTimeout) ?? 30 * MINUTE;
            for (const n of mine) {
              const since = parseTimestamp(n.annotations[K.hookWaitSince]);
              const overdue = since !== undefined && now - since >= timeout;
              if (scheduledOracle(n) && !hooksTrue(n, spec.beforeRebootAnnotations)) {
                // Scheduled and waiting: stamped, and within its deadline.
                expect(since).toBeDefined();
                expect(overdue).toBe(false);
                deadlinesSeen++;
              }
              if (n.labels[L.afterReboot] === 'true' && !hooksTrue(n, spec.afterRebootAnnotations)) {
                expect(since).toBeDefined();
                if (overdue) expect(n.annotations[K.failed]).toBeDefined();
                deadlinesSeen++;
              }
            }
          }
          nodes = current;
        }
      }),
      { numRuns: 400 },
    );
    // Not vacuous.
    expect(grantsSeen).toBeGreaterThan(50);
    expect(deadlinesSeen).toBeGreaterThan(50);
    expect(asideSeen).toBeGreaterThan(20);
    expect(shutSeen).toBeGreaterThan(50);
  }, 120_000);
});
