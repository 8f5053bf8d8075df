import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { budgetOf, fleetLayout, idealMs } from '../../bench/fleet.js';

describe('fleetLayout', () => {
  it('property: every node in one group, control plane first, budgets within 10–25% and at least one', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 40 }), fc.integer({ min: 0, max: 3_000 }), (groups, extra) => {
        const nodes = groups + 3 + extra;
        const layout = fleetLayout('f', nodes, groups);
        expect(layout.groups).toHaveLength(groups);
        const all = layout.groups.flatMap((g) => g.nodes);
        expect(new Set(all).size).toBe(nodes);
        expect(layout.specs.map((s) => s.name).sort()).toEqual([...all].sort());
        const [cp, ...workers] = layout.groups;
        expect(cp).toMatchObject({ order: 0, budget: 1 });
        expect(cp?.nodes).toHaveLength(3);
        for (const [i, g] of workers.entries()) {
          expect(g.order).toBe(i + 1);
          expect(g.budget).toBeGreaterThanOrEqual(1);
          expect(g.budget).toBeLessThanOrEqual(Math.max(1, Math.floor(g.nodes.length / 4)));
        }
      }),
    );
  });

  it('property: the ideal is each group in ⌈n / budget⌉ rounds, one after another', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 20 }), fc.integer({ min: 0, max: 500 }), (groups, extra) => {
        const layout = fleetLayout('f', groups + 3 + extra, groups);
        const rounds = layout.groups.reduce((n, g) => n + Math.ceil(g.nodes.length / g.budget), 0);
        expect(idealMs(layout, 1_000)).toBe(rounds * 1_000);
      }),
    );
  });

  it('rounds a percentage budget down, to one at least', () => {
    expect([budgetOf('25%', 9), budgetOf('10%', 52), budgetOf('10%', 5)]).toEqual([2, 5, 1]);
  });
});
