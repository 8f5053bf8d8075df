import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyWrite, applyWrites, type NamedRebootGroup, type NodeSnapshot, plan } from '../../src/index.js';
import {
  A,
  arbGroups,
  arbNodes,
  asking,
  asksOracle,
  budgetOracle,
  countsOracle,
  FIXED_ZONES,
  grants,
  group,
  HOOK_BEFORE,
  holdsSlotOracle,
  K,
  L,
  MINUTE,
  NOW,
  node,
  P,
  startsCycle,
  ts,
} from './fixtures.js';

import { arbScene, dCount, groupOf, members, RUNS } from './scenes.js';

/**
 * One group in which some nodes are back from their reboot (their slots to be released this
 * round) while others ask from NotReady (a slot for them takes no budget), in any name order.
 */
const arbReleaseAndFreeSlot = fc
  .record({
    kinds: fc.array(fc.constantFrom('back', 'downAsking', 'asking', 'idle'), { minLength: 2, maxLength: 7 }),
    maxUnavailable: fc.integer({ min: 1, max: 3 }),
  })
  .map(({ kinds, maxUnavailable }) => {
    const made = kinds.map((kind, i) => {
      const name = `n${i}`;
      if (kind === 'back')
        return node(name, {
          bootID: `${name}-boot-2`,
          annotations: { [K.grantedAt]: ts(NOW - 10 * MINUTE), [K.grantedBootId]: `${name}-boot-1` },
        });
      if (kind === 'downAsking') return asking(name, { conditions: { Ready: 'False' } });
      return kind === 'asking' ? asking(name) : node(name);
    });
    return { protocol: P, nodes: made, groups: [group('g', { maxUnavailable })], now: NOW };
  });

describe('invariant 1: budget', () => {
  it('grants only while |D| < budget; no write raises |D| above max(budget, |D| before it)', () => {
    let exercised = 0;
    fc.assert(
      fc.property(arbScene, ({ protocol, nodes, groups, now }) => {
        const result = plan({ nodes, groups, now, options: { protocol } });
        let current = nodes;
        for (const w of result.writes) {
          const g = result.membership[w.node] as string;
          const budget = budgetOracle(groupOf(groups, g).maxUnavailable, members(result, nodes, g).length);
          const before = dCount(result, current, g, protocol);
          const node = current.find((n) => n.name === w.node) as NodeSnapshot;
          const next = current.map((n) => (n.name === w.node ? applyWrite(n, w) : n));
          const after = dCount(result, next, g, protocol);
          expect(after).toBeLessThanOrEqual(Math.max(budget, before));
          if (startsCycle(w, node, protocol) && !countsOracle(node, protocol)) {
            expect(before).toBeLessThan(budget);
            exercised++;
          }
          current = next;
        }
      }),
      RUNS,
    );
    expect(exercised).toBeGreaterThan(100); // the property is not vacuous
  }, 60_000);

  it('no write raises the slot holders of a group above max(budget, holders before it)', () => {
    // A slot given to a node already unavailable consumes no budget, but it is a slot all the
    // same: a crash after its write and before the round's releases must not leave too many.
    let freeSlots = 0;
    fc.assert(
      fc.property(fc.oneof(arbScene, arbReleaseAndFreeSlot), ({ protocol, nodes, groups, now }) => {
        const result = plan({ nodes, groups, now, options: { protocol } });
        const holders = (list: readonly NodeSnapshot[], g: string) =>
          members(result, list, g).filter((n) => holdsSlotOracle(n, protocol)).length;
        let current = nodes;
        for (const w of result.writes) {
          const g = result.membership[w.node] as string;
          const budget = budgetOracle(groupOf(groups, g).maxUnavailable, members(result, nodes, g).length);
          const node = current.find((n) => n.name === w.node) as NodeSnapshot;
          const next = current.map((n) => (n.name === w.node ? applyWrite(n, w) : n));
          expect(holders(next, g)).toBeLessThanOrEqual(Math.max(budget, holders(current, g)));
          if (startsCycle(w, node, protocol) && countsOracle(node, protocol)) freeSlots++;
          current = next;
        }
      }),
      RUNS,
    );
    expect(freeSlots).toBeGreaterThan(20); // slots given to nodes already unavailable were seen
  }, 60_000);
});

describe('invariant 2: only on request', () => {
  it('schedules and grants only asking nodes of unpaused groups, and grants only after every before check', () => {
    fc.assert(
      fc.property(arbScene, ({ protocol, nodes, groups, now }) => {
        const result = plan({ nodes, groups, now, options: { protocol } });
        for (const w of result.writes) {
          const before = nodes.find((n) => n.name === w.node) as NodeSnapshot;
          const spec = groupOf(groups, result.membership[w.node] as string);
          if (!startsCycle(w, before, protocol)) continue;
          expect(asksOracle(before, protocol)).toBe(true);
          expect(spec.paused).not.toBe(true);
          if (grants(w, before, protocol) && (spec.beforeRebootAnnotations ?? []).length > 0) {
            expect(before.labels[protocol.labels.beforeReboot]).toBe('true');
            for (const hook of spec.beforeRebootAnnotations ?? [])
              expect(before.annotations[hook]).toBe('true');
          }
        }
      }),
      RUNS,
    );
  }, 60_000);
});

/** Oracle for fixed-offset zones: local weekday (0 = Mon) and minutes after midnight. */
function localFixed(now: number, zone: string): { day: number; minutes: number } {
  const local = new Date(now + (FIXED_ZONES[zone] as number) * MINUTE);
  return { day: (local.getUTCDay() + 6) % 7, minutes: local.getUTCHours() * 60 + local.getUTCMinutes() };
}

const DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

function windowOpenOracle(spec: NamedRebootGroup['spec'], now: number): boolean {
  const windows = spec.windows ?? [];
  if (windows.length === 0) return true;
  return windows.some((w) => {
    const { day, minutes } = localFixed(now, w.timeZone ?? 'UTC');
    const [sh, sm] = w.start.split(':').map(Number) as [number, number];
    const [eh, em] = w.end.split(':').map(Number) as [number, number];
    const start = sh * 60 + sm;
    const end = eh * 60 + em;
    const days = w.days?.length ? w.days.map((d) => DAY_NAMES.indexOf(d)) : [0, 1, 2, 3, 4, 5, 6];
    if (start < end) return days.includes(day) && minutes >= start && minutes < end;
    if (minutes >= start) return days.includes(day);
    return minutes < end && days.includes((day + 6) % 7);
  });
}

describe('invariant 3: windows', () => {
  const arbWindowScene = fc.record({
    nodes: arbNodes(P),
    groups: arbGroups({ windows: true }),
    // Any time over two weeks, on a 15-minute grid plus jitter so boundaries are hit.
    now: fc
      .tuple(fc.integer({ min: 0, max: 14 * 96 }), fc.constantFrom(0, 0, 1, -1, 59_999))
      .map(([q, j]) => NOW + q * 15 * MINUTE + j),
  });

  it('starts no cycle outside the group window (in the window time zone, across midnight)', () => {
    fc.assert(
      fc.property(arbWindowScene, ({ nodes, groups, now }) => {
        const result = plan({ nodes, groups, now });
        for (const g of Object.keys(result.groupStatus)) {
          const open = windowOpenOracle(groupOf(groups, g), now);
          expect(result.groupStatus[g]?.windowOpen).toBe(open);
          if (open) continue;
          for (const w of result.writes.filter((x) => result.membership[x.node] === g)) {
            expect(startsCycle(w, nodes.find((n) => n.name === w.node) as NodeSnapshot)).toBe(false);
          }
        }
      }),
      RUNS,
    );
  }, 60_000);
});

describe('invariant 4: revocation', () => {
  it('removes the hooks of a scheduled node that stopped asking and never grants it', () => {
    fc.assert(
      fc.property(arbScene, ({ protocol, nodes, groups, now }) => {
        const result = plan({ nodes, groups, now, options: { protocol } });
        const after = applyWrites(nodes, result.writes);
        for (const n of nodes) {
          const scheduledOnly =
            n.labels[protocol.labels.beforeReboot] === 'true' &&
            n.annotations[protocol.annotations.rebootOk] !== 'true' &&
            n.labels[protocol.labels.afterReboot] === undefined &&
            n.annotations[K.grantedAt] === undefined &&
            n.annotations[K.grantedBootId] === undefined;
          if (!scheduledOnly || asksOracle(n, protocol)) continue;
          const m = after.find((x) => x.name === n.name) as NodeSnapshot;
          expect(m.labels[protocol.labels.beforeReboot]).toBeUndefined();
          expect(m.annotations[protocol.annotations.rebootOk]).not.toBe('true');
          for (const hook of groupOf(groups, result.membership[n.name] as string).beforeRebootAnnotations ??
            []) {
            expect(m.annotations[hook]).toBeUndefined();
          }
        }
      }),
      RUNS,
    );
  }, 60_000);

  it('never grants a node that stops asking at any point before its grant', () => {
    const g: NamedRebootGroup[] = [{ name: 'g', spec: { beforeRebootAnnotations: [HOOK_BEFORE] } }];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('plan', 'hook', 'withdraw', 'pause', 'tick'), {
          minLength: 1,
          maxLength: 12,
        }),
        (steps) => {
          let nodes: NodeSnapshot[] = [
            {
              name: 'n',
              resourceVersion: '1',
              labels: {},
              annotations: { [A.rebootNeeded]: 'true' },
              unschedulable: false,
              conditions: { Ready: 'True' },
              bootID: 'b1',
            },
          ];
          let now = NOW;
          let stopped = false;
          for (const s of steps) {
            const n = nodes[0] as NodeSnapshot;
            if (s === 'plan') nodes = applyWrites(nodes, plan({ nodes, groups: g, now }).writes);
            else if (s === 'tick') now += MINUTE;
            else if (s === 'hook' && n.labels[L.beforeReboot] === 'true') {
              nodes = [{ ...n, annotations: { ...n.annotations, [HOOK_BEFORE]: 'true' } }];
            } else if ((s === 'withdraw' || s === 'pause') && n.annotations[A.rebootOk] !== 'true') {
              stopped = true;
              const key = s === 'withdraw' ? A.rebootNeeded : A.rebootPaused;
              nodes = [
                { ...n, annotations: { ...n.annotations, [key]: s === 'withdraw' ? 'false' : 'true' } },
              ];
            }
            if (stopped) expect((nodes[0] as NodeSnapshot).annotations[A.rebootOk]).not.toBe('true');
          }
          if (stopped) {
            nodes = applyWrites(nodes, plan({ nodes, groups: g, now }).writes);
            expect((nodes[0] as NodeSnapshot).labels[L.beforeReboot]).toBeUndefined();
          }
        },
      ),
      RUNS,
    );
  }, 60_000);
});
