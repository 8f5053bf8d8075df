/**
 * PDB-aware grants in the planner: a node whose drain a PodDisruptionBudget holds up takes no
 * slot and is not granted (`DrainBlocked`, naming the budget) while the next node goes first; two
 * nodes never count on the same disruption; a group that does not ask behaves as before. The
 * properties read pods and budgets with an oracle of their own, not the planner's ledger.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BudgetFacts, DisruptionFacts, EvictedPodFacts } from '../../src/decide/disruption-budgets.js';
import { applyWrite, applyWrites, type NamedRebootGroup, type NodeSnapshot, plan } from '../../src/index.js';
import {
  A,
  arbGroups,
  arbNodes,
  asking,
  byName,
  countsOracle,
  group,
  K,
  MINUTE,
  NOW,
  ts,
} from './fixtures.js';

const budget = (
  name: string,
  app: string | null,
  allowed: number,
  over: Partial<BudgetFacts> = {},
): BudgetFacts => ({
  namespace: 'shop',
  name,
  selector: app === null ? {} : { matchLabels: { app } },
  disruptionsAllowed: allowed,
  observed: true,
  satisfied: true,
  alwaysAllowUnhealthy: false,
  ...over,
});
const pod = (name: string, node: string, app: string, ready = true): EvictedPodFacts => ({
  namespace: 'shop',
  name,
  node,
  labels: { app },
  ready,
});

const g = group('g', { maxUnavailable: 1, pdbAware: true });
const first = asking('n1', { annotations: { [K.requestedAt]: ts(NOW - 2 * MINUTE) } });
const second = asking('n2', { annotations: { [K.requestedAt]: ts(NOW - MINUTE) } });

describe('PDB-aware grants', () => {
  it('grants first the node whose drain can go through, and names the budget that holds the other', () => {
    const disruption: DisruptionFacts = {
      budgets: [budget('db', 'db', 0)],
      pods: [pod('db-0', 'n1', 'db'), pod('web-0', 'n2', 'web')],
    };
    const r = plan({ nodes: [first, second], groups: [g], now: NOW, disruption });
    const nodes = applyWrites([first, second], r.writes);
    expect(byName(nodes, 'n1').annotations[A.rebootOk]).toBeUndefined();
    expect(byName(nodes, 'n2').annotations[A.rebootOk]).toBe('true');
    expect(r.groupStatus.g?.queue).toEqual([
      expect.objectContaining({
        node: 'n1',
        reason: 'DrainBlocked',
        message: expect.stringContaining('PodDisruptionBudget shop/db allows 0'),
      }),
    ]);
  });

  it('never lets two nodes count on one disruption in a round', () => {
    const two = group('g', { maxUnavailable: 2, pdbAware: true });
    const disruption: DisruptionFacts = {
      budgets: [budget('web', 'web', 1)],
      pods: [pod('web-0', 'n1', 'web'), pod('web-1', 'n2', 'web')],
    };
    const r = plan({ nodes: [first, second], groups: [two], now: NOW, disruption });
    const nodes = applyWrites([first, second], r.writes);
    expect(byName(nodes, 'n1').annotations[A.rebootOk]).toBe('true');
    expect(byName(nodes, 'n2').annotations[A.rebootOk]).toBeUndefined();
    expect(r.groupStatus.g?.queue[0]?.reason).toBe('DrainBlocked');
  });

  it('lets a node with more replicas than a budget allows at once go when it has the budget alone', () => {
    const disruption: DisruptionFacts = {
      budgets: [budget('web', 'web', 1)],
      pods: [pod('web-0', 'n1', 'web'), pod('web-1', 'n1', 'web')],
    };
    const r = plan({ nodes: [first], groups: [g], now: NOW, disruption });
    expect(applyWrites([first], r.writes)[0]?.annotations[A.rebootOk]).toBe('true');
  });

  it('refuses what the eviction API refuses: two budgets on a pod, an unobserved budget, an unready pod of an unsatisfied one', () => {
    const cases: DisruptionFacts[] = [
      { budgets: [budget('a', 'db', 5), budget('b', null, 5)], pods: [pod('db-0', 'n1', 'db')] },
      { budgets: [budget('a', 'db', 5, { observed: false })], pods: [pod('db-0', 'n1', 'db')] },
      { budgets: [budget('a', 'db', 5, { satisfied: false })], pods: [pod('db-0', 'n1', 'db', false)] },
    ];
    for (const disruption of cases) {
      const r = plan({ nodes: [first], groups: [g], now: NOW, disruption });
      expect(r.groupStatus.g?.queue[0]?.reason).toBe('DrainBlocked');
    }
    // An unready pod of a satisfied budget (or AlwaysAllow) needs no disruption.
    const ok = { budgets: [budget('a', 'db', 0)], pods: [pod('db-0', 'n1', 'db', false)] };
    expect(plan({ nodes: [first], groups: [g], now: NOW, disruption: ok }).groupStatus.g?.queue).toEqual([]);
  });

  it('holds every PDB-aware node when pods or budgets could not be read (fail closed)', () => {
    const disruption: DisruptionFacts = { budgets: [], pods: [], error: 'pods: 503' };
    const r = plan({ nodes: [first, second], groups: [g], now: NOW, disruption });
    expect(r.writes.some((w) => w.setAnnotations[A.rebootOk] === 'true')).toBe(false);
    expect(r.groupStatus.g?.queue.map((q) => q.reason)).toEqual(['DrainBlocked', 'DrainBlocked']);
  });
});

// --- properties --------------------------------------------------------------------------------

const APPS = ['a', 'b', 'c'];
const arbBudgets = fc.array(
  fc.record({
    app: fc.constantFrom<string | null>('a', 'b', 'c', null),
    allowed: fc.integer({ min: 0, max: 2 }),
    observed: fc.integer({ min: 0, max: 5 }).map((n) => n > 0),
    satisfied: fc.boolean(),
    always: fc.boolean(),
  }),
  { maxLength: 3 },
);
const arbPods = fc.array(
  fc.record({
    node: fc.integer({ min: 0, max: 7 }),
    app: fc.constantFrom(...APPS),
    ready: fc.integer({ min: 0, max: 4 }),
  }),
  { maxLength: 12 },
);

type ArbBudget = {
  app: string | null;
  allowed: number;
  observed: boolean;
  satisfied: boolean;
  always: boolean;
};
type ArbPod = { node: number; app: string; ready: number };

function factsOf(budgets: readonly ArbBudget[], pods: readonly ArbPod[]): DisruptionFacts {
  return {
    budgets: budgets.map((b, i) =>
      budget(`b${i}`, b.app, b.allowed, {
        observed: b.observed,
        satisfied: b.satisfied,
        alwaysAllowUnhealthy: b.always,
      }),
    ),
    pods: pods.map((p, i) => pod(`p${i}`, `node-${p.node}`, p.app, p.ready > 0)),
  };
}

/** The oracle: per node, the disruptions it needs by budget, or `refused`. */
function needsOracle(facts: DisruptionFacts, node: string): { refused: boolean; by: Map<string, number> } {
  const by = new Map<string, number>();
  let refused = false;
  for (const p of facts.pods.filter((x) => x.node === node)) {
    const covering = facts.budgets.filter(
      (b) =>
        b.selector !== null &&
        (b.selector.matchLabels === undefined || b.selector.matchLabels.app === p.labels.app),
    );
    if (covering.length === 0) continue;
    const b = covering[0] as BudgetFacts;
    if (covering.length > 1 || !b.observed || (!p.ready && !b.satisfied && !b.alwaysAllowUnhealthy))
      refused = true;
    else if (p.ready) by.set(b.name, (by.get(b.name) ?? 0) + 1);
  }
  return { refused, by };
}

const aware = (groups: NamedRebootGroup[], on: boolean[]): NamedRebootGroup[] =>
  groups.map((gr, i) => ({ ...gr, spec: { ...gr.spec, pdbAware: on[i] ?? false } }));

/** Random fleets and groups, or (half the time) a PDB-aware group whose nodes all ask at once. */
const arbFleet = fc.oneof(
  fc
    .tuple(arbNodes(), arbGroups({ hooks: false }), fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }))
    .map(([nodes, groups, on]) => ({ nodes, groups: aware(groups, on) })),
  fc.tuple(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 4 })).map(([n, max]) => ({
    nodes: Array.from({ length: n }, (_, i) =>
      asking(`node-${i}`, { annotations: { [K.requestedAt]: ts(NOW - (n - i) * MINUTE) } }),
    ),
    groups: [group('all', { maxUnavailable: max, pdbAware: true })],
  })),
);

describe('PDB-aware grants (property)', () => {
  it('never schedules or grants a PDB-aware node whose drain the budgets left cannot take', () => {
    let checked = 0;
    fc.assert(
      fc.property(arbFleet, arbBudgets, arbPods, ({ nodes, groups: gs }, budgets, pods) => {
        const disruption = factsOf(budgets, pods);
        const r = plan({ nodes, groups: gs, now: NOW, disruption });
        let current = nodes;
        for (const w of r.writes) {
          const before = current.find((n) => n.name === w.node) as NodeSnapshot;
          const after = applyWrite(before, w);
          const takes = !countsOracle(before) && countsOracle(after);
          const grants = w.setAnnotations[A.rebootOk] === 'true' && before.annotations[A.rebootOk] !== 'true';
          const spec = gs.find((x) => x.name === r.membership[w.node])?.spec;
          if ((takes || grants) && spec?.pdbAware === true) {
            checked++;
            const mine = needsOracle(disruption, w.node);
            expect(mine.refused).toBe(false);
            for (const [b, need] of mine.by) {
              const others = current
                .filter((n) => n.name !== w.node && countsOracle(n))
                .reduce((sum, n) => sum + (needsOracle(disruption, n.name).by.get(b) ?? 0), 0);
              const allowed = disruption.budgets.find((x) => x.name === b)?.disruptionsAllowed ?? 0;
              expect(need <= allowed - others || (others === 0 && allowed >= 1)).toBe(true);
            }
          }
          current = current.map((n) => (n.name === w.node ? after : n));
        }
        for (const status of Object.values(r.groupStatus))
          for (const q of status.queue)
            if (q.reason === 'DrainBlocked') expect(q.message).toMatch(/shop\/b\d/);
      }),
    );
    expect(checked).toBeGreaterThan(0);
  });

  it('changes nothing for groups that are not PDB-aware', () => {
    fc.assert(
      fc.property(arbNodes(), arbGroups(), arbBudgets, arbPods, (nodes, groups, budgets, pods) => {
        const off = aware(groups, [false, false, false]);
        const without = plan({ nodes, groups: off, now: NOW });
        const withFacts = plan({ nodes, groups: off, now: NOW, disruption: factsOf(budgets, pods) });
        expect(withFacts.writes).toEqual(without.writes);
        expect(withFacts.groupStatus).toEqual(without.groupStatus);
      }),
    );
  });
});
